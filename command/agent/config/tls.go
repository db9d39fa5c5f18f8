package config

import (
	"errors"
	"fmt"

	"github.com/drover-io/drover/internal/tlsutil"
)

// TLSConfig is the agent's tls block: HTTPS for the HTTP API and mutual
// TLS between agents on the RPC port, both with one CA and one certificate
// per agent, as Nomad's.
type TLSConfig struct {
	// HTTP serves the HTTP API over HTTPS only.
	HTTP bool
	// RPC runs every RPC and raft connection over mutual TLS.
	RPC bool

	CAFile   string
	CertFile string
	KeyFile  string

	// VerifyServerHostname makes an agent that dials a server check that
	// the server's certificate names server.<region>.nomad; without it,
	// any certificate the CA signed passes on the dialing side. The
	// accepting side always reads the dialer's role from its certificate.
	VerifyServerHostname bool

	// VerifyHTTPSClient requires every HTTPS client to present a
	// certificate the CA signed.
	VerifyHTTPSClient bool
}

// Enabled reports whether any part of TLS is on.
func (t TLSConfig) Enabled() bool { return t.HTTP || t.RPC }

// Files are the block's file settings.
func (t TLSConfig) Files() tlsutil.Files {
	return tlsutil.Files{CAFile: t.CAFile, CertFile: t.CertFile, KeyFile: t.KeyFile}
}

// validate reports what is wrong with the block.
func (t TLSConfig) validate() error {
	var errs []error
	if t.Enabled() {
		for _, f := range []struct{ name, path string }{
			{"tls.ca_file", t.CAFile}, {"tls.cert_file", t.CertFile}, {"tls.key_file", t.KeyFile},
		} {
			if f.path == "" {
				errs = append(errs, fmt.Errorf("%s is required when tls.http or tls.rpc is true", f.name))
			}
		}
	}
	if t.VerifyHTTPSClient && !t.HTTP {
		errs = append(errs, errors.New("tls.verify_https_client needs tls.http = true"))
	}
	if t.VerifyServerHostname && !t.RPC {
		errs = append(errs, errors.New("tls.verify_server_hostname needs tls.rpc = true"))
	}
	return errors.Join(errs...)
}

// fileTLS mirrors the tls block of a configuration file.
type fileTLS struct {
	HTTP                 *bool   `hcl:"http,optional"`
	RPC                  *bool   `hcl:"rpc,optional"`
	CAFile               *string `hcl:"ca_file,optional"`
	CertFile             *string `hcl:"cert_file,optional"`
	KeyFile              *string `hcl:"key_file,optional"`
	VerifyServerHostname *bool   `hcl:"verify_server_hostname,optional"`
	VerifyHTTPSClient    *bool   `hcl:"verify_https_client,optional"`
}

func (ft *fileTLS) applyTo(t *TLSConfig) {
	if ft == nil {
		return
	}
	setBool(&t.HTTP, ft.HTTP)
	setBool(&t.RPC, ft.RPC)
	setString(&t.CAFile, ft.CAFile)
	setString(&t.CertFile, ft.CertFile)
	setString(&t.KeyFile, ft.KeyFile)
	setBool(&t.VerifyServerHostname, ft.VerifyServerHostname)
	setBool(&t.VerifyHTTPSClient, ft.VerifyHTTPSClient)
}
