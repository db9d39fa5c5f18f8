// Package tlsutil holds what Drover's agents and commands share about TLS:
// the names a certificate carries for each role, loading a CA, certificate
// and key into the tls.Config each side of a connection needs, and making
// a CA and certificates for a cluster.
package tlsutil

import (
	"crypto/x509"
	"fmt"
	"slices"
)

// Role is what a certificate lets its holder be in a cluster.
type Role string

// The roles a certificate can name. Certificates name them as Nomad's do,
// "<role>.<region>.nomad", so that a cluster's certificates, and the tools
// that make them, work with both.
const (
	RoleServer Role = "server"
	RoleClient Role = "client"
	RoleCLI    Role = "cli"
)

// Domain ends every role name.
const Domain = "nomad"

// Name is the DNS name a certificate for role in region carries:
// "server.global.nomad".
func Name(role Role, region string) string {
	return fmt.Sprintf("%s.%s.%s", role, region, Domain)
}

// HasRole reports whether cert names role in region.
func HasRole(cert *x509.Certificate, role Role, region string) bool {
	if cert == nil {
		return false
	}
	return slices.Contains(cert.DNSNames, Name(role, region))
}

// RoleOf returns the cluster role cert names in region: server before
// client, since a server may do all a client does. It reports false for a
// certificate that names neither.
func RoleOf(cert *x509.Certificate, region string) (Role, bool) {
	for _, role := range []Role{RoleServer, RoleClient} {
		if HasRole(cert, role, region) {
			return role, true
		}
	}
	return "", false
}
