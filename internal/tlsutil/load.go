package tlsutil

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Files names the PEM files of an agent's TLS setup: the CA that signs the
// cluster's certificates, and the agent's own certificate and key.
type Files struct {
	CAFile   string
	CertFile string
	KeyFile  string
}

// Material is a loaded TLS setup.
type Material struct {
	// CAs verifies the certificates peers present.
	CAs *x509.CertPool
	// Cert is the agent's own certificate, presented to every peer.
	Cert tls.Certificate
	// Leaf is Cert's parsed first certificate.
	Leaf *x509.Certificate
}

// Load reads the CA, certificate and key that f names. Every file is
// required; errors name the file at fault.
func Load(f Files) (*Material, error) {
	var missing []string
	for _, file := range []struct{ name, path string }{
		{"ca_file", f.CAFile}, {"cert_file", f.CertFile}, {"key_file", f.KeyFile},
	} {
		if file.path == "" {
			missing = append(missing, file.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("TLS needs %s", strings.Join(missing, ", "))
	}
	cas, err := LoadCAFile(f.CAFile)
	if err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("load certificate %s with key %s: %w", f.CertFile, f.KeyFile, err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		return nil, fmt.Errorf("parse certificate %s: %w", f.CertFile, err)
	}
	cert.Leaf = leaf
	return &Material{CAs: cas, Cert: cert, Leaf: leaf}, nil
}

// LoadCAFile reads a PEM file of one or more CA certificates into a pool.
func LoadCAFile(path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read CA file: %w", err)
	}
	pool, err := ParseCAs(data)
	if err != nil {
		return nil, fmt.Errorf("CA file %s: %w", path, err)
	}
	return pool, nil
}

// ParseCAs parses PEM-encoded CA certificates into a pool. Anything in
// data other than certificates is an error.
func ParseCAs(data []byte) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	n := 0
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			if strings.TrimSpace(string(rest)) != "" {
				return nil, errors.New("holds data that is not PEM")
			}
			break
		}
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("holds a %q block; only certificates belong in a CA file", block.Type)
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d: %w", n+1, err)
		}
		pool.AddCert(cert)
		n++
	}
	if n == 0 {
		return nil, errors.New("holds no certificate")
	}
	return pool, nil
}

// minVersion is the oldest TLS version Drover speaks.
const minVersion = tls.VersionTLS12

// ServerConfig is the configuration of the accepting side. With
// requireClientCert, every peer must present a certificate the CA signed;
// without, peers present none.
func (m *Material) ServerConfig(requireClientCert bool) *tls.Config {
	cfg := &tls.Config{
		MinVersion:   minVersion,
		Certificates: []tls.Certificate{m.Cert},
		ClientCAs:    m.CAs,
		ClientAuth:   tls.NoClientCert,
	}
	if requireClientCert {
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg
}

// DialConfig is the configuration of the dialing side: it presents the
// agent's certificate and accepts a peer whose certificate the CA signed
// and, when roles are given, that names one of them in region.
func (m *Material) DialConfig(region string, roles ...Role) *tls.Config {
	return &tls.Config{
		MinVersion:   minVersion,
		Certificates: []tls.Certificate{m.Cert},
		// The standard verification checks the address dialed against
		// the certificate; what matters here is the role it names, so
		// VerifyConnection checks the chain and the role instead.
		InsecureSkipVerify: true,
		VerifyConnection:   VerifyPeer(m.CAs, x509.ExtKeyUsageServerAuth, region, roles...),
	}
}

// VerifyPeer returns a check of a connection's peer: its certificate
// chains to one of cas for usage and, when roles are given, names one of
// them in region.
func VerifyPeer(cas *x509.CertPool, usage x509.ExtKeyUsage, region string, roles ...Role) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the peer presented no certificate")
		}
		leaf := cs.PeerCertificates[0]
		opts := x509.VerifyOptions{
			Roots:         cas,
			Intermediates: x509.NewCertPool(),
			KeyUsages:     []x509.ExtKeyUsage{usage},
		}
		for _, c := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		if _, err := leaf.Verify(opts); err != nil {
			return fmt.Errorf("verify the peer's certificate: %w", err)
		}
		if len(roles) == 0 {
			return nil
		}
		names := make([]string, len(roles))
		for i, role := range roles {
			if HasRole(leaf, role, region) {
				return nil
			}
			names[i] = Name(role, region)
		}
		return fmt.Errorf("the peer's certificate (%s) names none of %s", describe(leaf), strings.Join(names, ", "))
	}
}

// describe names a certificate in an error: its subject and DNS names.
func describe(cert *x509.Certificate) string {
	return fmt.Sprintf("CN=%s, DNS names [%s]", cert.Subject.CommonName, strings.Join(cert.DNSNames, " "))
}
