package api

import (
	"net/http"
	"os"
	"time"
)

// DefaultAddress is where a client looks for an agent when neither the
// configuration nor the environment names one.
const DefaultAddress = "http://127.0.0.1:4646"

// Config says how a Client reaches and authenticates to an agent.
type Config struct {
	// Address is the agent's HTTP address, such as "http://127.0.0.1:4646".
	// An address without a scheme ("127.0.0.1:4646") means plain HTTP.
	Address string

	// Region and Namespace scope every request that does not set its own.
	Region    string
	Namespace string

	// HttpClient sends the requests. When nil, the client builds one with no
	// overall timeout, because a blocking query legitimately waits for as
	// long as its wait time; cancel a request through its context instead.
	HttpClient *http.Client

	// Token is the ACL secret sent as X-Nomad-Token unless a request brings
	// its own.
	Token string

	// WaitTime is the longest a blocking query waits when its options do not
	// set a wait time of their own.
	WaitTime time.Duration

	// TLSConfig verifies an agent that serves HTTPS and names the
	// certificate to present to it. It is ignored when HttpClient is set:
	// that client brings its own.
	TLSConfig *TLSConfig

	// envErr is what was wrong with the environment DefaultConfig read;
	// NewClient reports it.
	envErr error
}

// DefaultConfig returns a configuration read from the environment. Drover's
// own variables win over Nomad's, so that a shell set up for Nomad works
// unchanged and one set up for both talks to Drover:
//
//	address    DROVER_ADDR, NOMAD_ADDR (default http://127.0.0.1:4646)
//	region     DROVER_REGION, NOMAD_REGION
//	namespace  DROVER_NAMESPACE, NOMAD_NAMESPACE
//	token      DROVER_TOKEN, NOMAD_TOKEN
//	TLS        DROVER_CACERT, NOMAD_CACERT; DROVER_CAPATH, NOMAD_CAPATH;
//	           DROVER_CLIENT_CERT, NOMAD_CLIENT_CERT;
//	           DROVER_CLIENT_KEY, NOMAD_CLIENT_KEY;
//	           DROVER_TLS_SERVER_NAME, NOMAD_TLS_SERVER_NAME;
//	           DROVER_SKIP_VERIFY, NOMAD_SKIP_VERIFY
//
// TLSConfig stays nil unless one of the TLS variables is set.
func DefaultConfig() *Config {
	cfg := &Config{
		Address:   firstEnv("DROVER_ADDR", "NOMAD_ADDR"),
		Region:    firstEnv("DROVER_REGION", "NOMAD_REGION"),
		Namespace: firstEnv("DROVER_NAMESPACE", "NOMAD_NAMESPACE"),
		Token:     firstEnv("DROVER_TOKEN", "NOMAD_TOKEN"),
	}
	cfg.TLSConfig, cfg.envErr = tlsFromEnv()
	if cfg.Address == "" {
		cfg.Address = DefaultAddress
	}
	return cfg
}

// firstEnv returns the value of the first of the named environment variables
// that is set and not empty.
func firstEnv(names ...string) string {
	for _, name := range names {
		if v := os.Getenv(name); v != "" {
			return v
		}
	}
	return ""
}
