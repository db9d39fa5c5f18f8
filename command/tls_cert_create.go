package command

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"

	"github.com/drover-io/drover/internal/tlsutil"
)

// TLSCertCreateCommand makes a certificate for a server, a client or the
// CLI, signed by the cluster's CA.
type TLSCertCreateCommand struct{ Meta }

func (c *TLSCertCreateCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover tls cert create -server|-client|-cli [options]

  Makes a certificate with an ECDSA P-256 key, signed by the CA that
  'drover tls ca create' made, and writes it to <region>-<role>-drover.pem
  and its key to <region>-<role>-drover-key.pem in the working directory
  (global-server-drover.pem, say). Existing files are never replaced.

  The certificate names its role as the agents check it:
  server.<region>.nomad, client.<region>.nomad or cli.<region>.nomad, and
  also localhost and 127.0.0.1. A server certificate lets its holder act as
  a server: keep it on the servers only, as safely as the CA key.

Options:

  -server
    Make a certificate for the servers of the region.

  -client
    Make a certificate for the clients of the region.

  -cli
    Make a certificate for CLI users and other HTTPS clients.

  -region=<region>
    The region the certificate is for. Defaults to "global".

  -ca=<path>
    The CA certificate. Defaults to ` + defaultCAFile + `.

  -key=<path>
    The CA's key. Defaults to ` + defaultCAKeyFile + `.

  -days=<n>
    How many days the certificate is valid. Defaults to 365.

  -additional-dnsname=<name>
    Another DNS name for the certificate, such as the name clients use to
    reach the agent. May be given more than once. The name of another
    role (server.<region>.nomad on a client certificate, say) is refused:
    it would give the certificate that role.

  -additional-ipaddress=<ip>
    Another IP address for the certificate, such as the address agents and
    CLI users reach the agent on. May be given more than once.
`)
}

func (c *TLSCertCreateCommand) Synopsis() string { return "Make a certificate" }

func (c *TLSCertCreateCommand) Run(args []string) int {
	fs := c.FlagSet("tls cert create")
	var server, client, cliRole bool
	var region, caFile, keyFile string
	var days int
	var dnsNames, ips stringSliceFlag
	fs.BoolVar(&server, "server", false, "")
	fs.BoolVar(&client, "client", false, "")
	fs.BoolVar(&cliRole, "cli", false, "")
	fs.StringVar(&region, "region", "global", "")
	fs.StringVar(&caFile, "ca", defaultCAFile, "")
	fs.StringVar(&keyFile, "key", defaultCAKeyFile, "")
	fs.IntVar(&days, "days", 365, "")
	fs.Var(&dnsNames, "additional-dnsname", "")
	fs.Var(&ips, "additional-ipaddress", "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() > 0 {
		c.Ui.Error("This command takes no arguments")
		return exitError
	}
	role, err := certRole(server, client, cliRole)
	if err != nil {
		c.Ui.Error(err.Error())
		return exitError
	}
	opts, err := certOptions(role, region, days, dnsNames, ips)
	if err != nil {
		c.Ui.Error(err.Error())
		return exitError
	}
	ca, err := readCA(caFile, keyFile)
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error reading CA: %v", err))
		return exitError
	}
	cert, err := tlsutil.GenerateCert(ca, opts)
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error creating certificate: %v", err))
		return exitError
	}
	base := fmt.Sprintf("%s-%s-drover", region, role)
	if role == tlsutil.RoleServer {
		c.Ui.Warn("==> WARNING: a server certificate lets its holder act as a server of the\n" +
			"    cluster: take part in raft and read and change all of its state. Put it\n" +
			"    on server machines only and keep it as safe as the CA key.")
	}
	c.Ui.Output(fmt.Sprintf("==> Using CA file %s and CA key %s", caFile, keyFile))
	if err := writePair(base+".pem", cert.Cert, base+"-key.pem", cert.Key); err != nil {
		c.Ui.Error(fmt.Sprintf("Error saving certificate: %v", err))
		return exitError
	}
	c.Ui.Output(fmt.Sprintf("==> %s certificate saved to: %s.pem", roleTitle(role), base))
	c.Ui.Output(fmt.Sprintf("==> %s certificate key saved to: %s-key.pem", roleTitle(role), base))
	return exitOK
}

// certRole is the one role the flags ask for.
func certRole(server, client, cli bool) (tlsutil.Role, error) {
	var roles []tlsutil.Role
	if server {
		roles = append(roles, tlsutil.RoleServer)
	}
	if client {
		roles = append(roles, tlsutil.RoleClient)
	}
	if cli {
		roles = append(roles, tlsutil.RoleCLI)
	}
	if len(roles) != 1 {
		return "", errors.New("give exactly one of -server, -client or -cli")
	}
	return roles[0], nil
}

// certOptions describes the certificate of role in region: its role name,
// localhost and 127.0.0.1, and the additional names and addresses.
func certOptions(role tlsutil.Role, region string, days int, dnsNames, ips []string) (tlsutil.CertOptions, error) {
	if region == "" || strings.ContainsAny(region, ". /") {
		return tlsutil.CertOptions{}, fmt.Errorf("-region %q is not a region name", region)
	}
	name := tlsutil.Name(role, region)
	opts := tlsutil.CertOptions{
		CommonName:  name,
		DNSNames:    []string{name, "localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		Days:        days,
		ClientOnly:  role == tlsutil.RoleCLI,
	}
	for _, n := range dnsNames {
		if n == "" || strings.ContainsAny(n, " /:") {
			return tlsutil.CertOptions{}, fmt.Errorf("-additional-dnsname %q is not a DNS name", n)
		}
		if other, ok := namedRole(n); ok && other != role {
			return tlsutil.CertOptions{}, fmt.Errorf("-additional-dnsname %q names the %s role: a %s certificate that carries it would let its holder act as a %s; make a %s certificate with -%s instead",
				n, other, role, other, other, other)
		}
		if !slices.Contains(opts.DNSNames, n) {
			opts.DNSNames = append(opts.DNSNames, n)
		}
	}
	for _, s := range ips {
		ip := net.ParseIP(s)
		if ip == nil {
			return tlsutil.CertOptions{}, fmt.Errorf("-additional-ipaddress %q is not an IP address", s)
		}
		if !slices.ContainsFunc(opts.IPAddresses, ip.Equal) {
			opts.IPAddresses = append(opts.IPAddresses, ip)
		}
	}
	return opts, nil
}

// namedRole returns the role that name gives a certificate in some
// region ("server.eu.nomad" the server role), compared as TLS compares
// names: without case or a final dot.
func namedRole(name string) (tlsutil.Role, bool) {
	labels := strings.Split(strings.TrimSuffix(strings.ToLower(name), "."), ".")
	if len(labels) != 3 || labels[2] != tlsutil.Domain {
		return "", false
	}
	for _, role := range []tlsutil.Role{tlsutil.RoleServer, tlsutil.RoleClient, tlsutil.RoleCLI} {
		if labels[0] == string(role) {
			return role, true
		}
	}
	return "", false
}

func readCA(certFile, keyFile string) (tlsutil.PEM, error) {
	cert, err := os.ReadFile(certFile)
	if err != nil {
		return tlsutil.PEM{}, fmt.Errorf("%w (make one with 'drover tls ca create', or name it with -ca)", err)
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return tlsutil.PEM{}, fmt.Errorf("%w (name the CA's key with -key)", err)
	}
	return tlsutil.PEM{Cert: cert, Key: key}, nil
}

func roleTitle(role tlsutil.Role) string {
	switch role {
	case tlsutil.RoleServer:
		return "Server"
	case tlsutil.RoleClient:
		return "Client"
	}
	return "CLI"
}
