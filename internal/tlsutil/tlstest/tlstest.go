// Package tlstest makes throw-away CAs and certificates for tests, written
// to a test's temporary directory in the shape `drover tls` writes them.
package tlstest

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/drover-io/drover/internal/tlsutil"
)

// CA is a test CA and the directory its files are in.
type CA struct {
	PEM    tlsutil.PEM
	Dir    string
	CAFile string
}

// NewCA makes a CA in a temporary directory of t's.
func NewCA(t testing.TB) *CA {
	t.Helper()
	ca, err := tlsutil.GenerateCA(tlsutil.CAOptions{CommonName: "Drover Test CA", Days: 2})
	if err != nil {
		t.Fatalf("generate CA: %v", err)
	}
	dir := t.TempDir()
	c := &CA{PEM: ca, Dir: dir, CAFile: filepath.Join(dir, "ca.pem")}
	write(t, c.CAFile, ca.Cert)
	return c
}

// Files makes a certificate for role in region, valid for localhost and
// 127.0.0.1 as well, and returns the files of a TLS setup that uses it.
// name keeps the files of several certificates apart.
func (c *CA) Files(t testing.TB, name string, role tlsutil.Role, region string) tlsutil.Files {
	t.Helper()
	return c.FilesFor(t, name, tlsutil.CertOptions{
		CommonName:  tlsutil.Name(role, region),
		DNSNames:    []string{tlsutil.Name(role, region), "localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ClientOnly:  role == tlsutil.RoleCLI,
	})
}

// FilesFor makes a certificate as opts say and returns the files of a TLS
// setup that uses it.
func (c *CA) FilesFor(t testing.TB, name string, opts tlsutil.CertOptions) tlsutil.Files {
	t.Helper()
	if opts.Days == 0 {
		opts.Days = 1
	}
	cert, err := tlsutil.GenerateCert(c.PEM, opts)
	if err != nil {
		t.Fatalf("generate certificate %s: %v", name, err)
	}
	f := tlsutil.Files{
		CAFile:   c.CAFile,
		CertFile: filepath.Join(c.Dir, name+".pem"),
		KeyFile:  filepath.Join(c.Dir, name+"-key.pem"),
	}
	write(t, f.CertFile, cert.Cert)
	write(t, f.KeyFile, cert.Key)
	return f
}

// Material loads the files of a TLS setup.
func Material(t testing.TB, f tlsutil.Files) *tlsutil.Material {
	t.Helper()
	m, err := tlsutil.Load(f)
	if err != nil {
		t.Fatalf("load TLS files: %v", err)
	}
	return m
}

func write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
}
