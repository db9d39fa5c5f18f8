package api

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
)

// TLSConfig says how a Client verifies the agent's HTTPS certificate and
// which certificate it presents, as Nomad's api.TLSConfig. Paths and PEM
// contents are alternatives: a path wins over the PEM bytes of the same
// item.
type TLSConfig struct {
	// CACert is a PEM file of the CA certificates that sign the agent's
	// certificate; CAPath a directory of such files; CACertPEM their
	// contents. Without any, the system's roots verify the agent.
	CACert    string
	CAPath    string
	CACertPEM []byte

	// ClientCert and ClientKey (or their PEM contents) are the
	// certificate presented to an agent that verifies HTTPS clients.
	ClientCert    string
	ClientCertPEM []byte
	ClientKey     string
	ClientKeyPEM  []byte

	// TLSServerName is the name the agent's certificate must carry, when
	// it is not the host of the address (server.global.nomad, say).
	TLSServerName string

	// Insecure skips the verification of the agent's certificate.
	Insecure bool
}

// Copy returns a copy of t that shares no memory with it.
func (t *TLSConfig) Copy() *TLSConfig {
	if t == nil {
		return nil
	}
	out := *t
	out.CACertPEM = append([]byte(nil), t.CACertPEM...)
	out.ClientCertPEM = append([]byte(nil), t.ClientCertPEM...)
	out.ClientKeyPEM = append([]byte(nil), t.ClientKeyPEM...)
	return &out
}

// tlsFromEnv reads the TLS settings of the environment, Drover's variables
// before Nomad's. It returns nil when none is set.
func tlsFromEnv() (*TLSConfig, error) {
	t := &TLSConfig{
		CACert:        firstEnv("DROVER_CACERT", "NOMAD_CACERT"),
		CAPath:        firstEnv("DROVER_CAPATH", "NOMAD_CAPATH"),
		ClientCert:    firstEnv("DROVER_CLIENT_CERT", "NOMAD_CLIENT_CERT"),
		ClientKey:     firstEnv("DROVER_CLIENT_KEY", "NOMAD_CLIENT_KEY"),
		TLSServerName: firstEnv("DROVER_TLS_SERVER_NAME", "NOMAD_TLS_SERVER_NAME"),
	}
	var err error
	for _, name := range []string{"DROVER_SKIP_VERIFY", "NOMAD_SKIP_VERIFY"} {
		v := os.Getenv(name)
		if v == "" {
			continue
		}
		if t.Insecure, err = strconv.ParseBool(v); err != nil {
			err = fmt.Errorf("%s=%q is not true or false", name, v)
		}
		break
	}
	unset := t.CACert == "" && t.CAPath == "" && t.ClientCert == "" && t.ClientKey == "" &&
		t.TLSServerName == "" && !t.Insecure
	if unset {
		return nil, err
	}
	return t, err
}

// clientTLS builds the tls.Config of t: the CAs that verify the agent and
// the certificate presented to it.
func (t *TLSConfig) clientTLS() (*tls.Config, error) {
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         t.TLSServerName,
		InsecureSkipVerify: t.Insecure,
	}
	roots, err := t.roots()
	if err != nil {
		return nil, err
	}
	cfg.RootCAs = roots
	cert, err := t.clientCert()
	if err != nil {
		return nil, err
	}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	return cfg, nil
}

// roots returns the CA pool t names, or nil for the system's roots.
func (t *TLSConfig) roots() (*x509.CertPool, error) {
	var files []string
	switch {
	case t.CACert != "":
		files = []string{t.CACert}
	case t.CAPath != "":
		entries, err := os.ReadDir(t.CAPath)
		if err != nil {
			return nil, fmt.Errorf("read CA directory: %w", err)
		}
		for _, e := range entries {
			if !e.IsDir() {
				files = append(files, filepath.Join(t.CAPath, e.Name()))
			}
		}
	case len(t.CACertPEM) > 0:
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(t.CACertPEM) {
			return nil, errors.New("CACertPEM holds no PEM certificate")
		}
		return pool, nil
	default:
		return nil, nil
	}
	pool := x509.NewCertPool()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read CA certificate: %w", err)
		}
		if !pool.AppendCertsFromPEM(data) {
			return nil, fmt.Errorf("CA certificate file %s holds no PEM certificate", f)
		}
	}
	return pool, nil
}

// clientCert loads the certificate t presents, nil when it names none.
func (t *TLSConfig) clientCert() (*tls.Certificate, error) {
	switch {
	case t.ClientCert != "" || t.ClientKey != "":
		if t.ClientCert == "" || t.ClientKey == "" {
			return nil, errors.New("a client certificate needs both the certificate and its key")
		}
		cert, err := tls.LoadX509KeyPair(t.ClientCert, t.ClientKey)
		if err != nil {
			return nil, fmt.Errorf("load client certificate %s with key %s: %w", t.ClientCert, t.ClientKey, err)
		}
		return &cert, nil
	case len(t.ClientCertPEM) > 0 || len(t.ClientKeyPEM) > 0:
		if len(t.ClientCertPEM) == 0 || len(t.ClientKeyPEM) == 0 {
			return nil, errors.New("a client certificate needs both the certificate and its key")
		}
		cert, err := tls.X509KeyPair(t.ClientCertPEM, t.ClientKeyPEM)
		if err != nil {
			return nil, fmt.Errorf("load client certificate: %w", err)
		}
		return &cert, nil
	}
	return nil, nil
}

// configureTLS sets t on the transport of an HTTP client the package built.
func configureTLS(client *http.Client, t *TLSConfig) error {
	if t == nil {
		return nil
	}
	cfg, err := t.clientTLS()
	if err != nil {
		return fmt.Errorf("TLS configuration: %w", err)
	}
	client.Transport.(*http.Transport).TLSClientConfig = cfg
	return nil
}
