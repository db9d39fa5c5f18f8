package netguard

import (
	"fmt"
	"net/netip"
	"strings"
)

// Class is a kind of address a policy may refuse. An address may belong
// to several (169.254.169.254 is link-local and metadata); one that
// belongs to none is public.
type Class uint8

const (
	// Loopback is 127.0.0.0/8 and ::1: services of the client's own
	// machine that listen for it alone.
	Loopback Class = 1 << iota
	// LinkLocal is 169.254.0.0/16 and fe80::/10, where clouds put their
	// instance metadata.
	LinkLocal
	// Metadata is the cloud instance metadata and credential endpoints,
	// wherever they are (see metadataAddrs): the instance's credentials
	// answer there.
	Metadata
	// Unspecified is 0.0.0.0/8 and ::. Linux connects 0.0.0.0 to the
	// machine itself.
	Unspecified
	// Private is RFC 1918 (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16),
	// carrier-grade NAT (100.64.0.0/10) and unique local IPv6
	// (fc00::/7).
	Private
	// Multicast is 224.0.0.0/4, ff00::/8 and the broadcast address
	// 255.255.255.255.
	Multicast

	classEnd
)

var classNames = []struct {
	class Class
	name  string
}{
	{Loopback, "loopback"},
	{LinkLocal, "link_local"},
	{Metadata, "metadata"},
	{Unspecified, "unspecified"},
	{Private, "private"},
	{Multicast, "multicast"},
}

// ParseClass reads a class by its name in the configuration: loopback,
// link_local, metadata, unspecified, private or multicast.
func ParseClass(name string) (Class, error) {
	for _, c := range classNames {
		if c.name == name {
			return c.class, nil
		}
	}
	names := make([]string, len(classNames))
	for i, c := range classNames {
		names[i] = c.name
	}
	return 0, fmt.Errorf("%q is not a class of address (%s)", name, strings.Join(names, ", "))
}

// String names the classes in c, joined by "+" when there are several.
func (c Class) String() string {
	var names []string
	for _, n := range classNames {
		if c&n.class != 0 {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "public"
	}
	return strings.Join(names, "+")
}

// metadataAddrs are the well-known cloud instance metadata and credential
// endpoints. Most are link-local anyway; the IPv6 and Alibaba ones are
// not, so they are named here one by one.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, Oracle, OpenStack, DigitalOcean
	netip.MustParseAddr("169.254.170.2"),   // AWS ECS task credentials
	netip.MustParseAddr("169.254.170.23"),  // AWS EKS pod identity
	netip.MustParseAddr("fd00:ec2::254"),   // AWS IMDS over IPv6
	netip.MustParseAddr("fd00:ec2::23"),    // AWS EKS pod identity over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
}

var (
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	sharedCGNAT = netip.MustParsePrefix("100.64.0.0/10")
	broadcast   = netip.MustParseAddr("255.255.255.255")
	// nat64 is the well-known NAT64 prefix (RFC 6052): an address in it
	// reaches the IPv4 address in its last 32 bits through a translator.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

// Classify returns the classes addr belongs to; zero is a public address.
// IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are the IPv4 address they
// carry, and a NAT64 address (64:ff9b::7f00:1) belongs to the classes of
// the IPv4 address it translates to as well as its own.
func Classify(addr netip.Addr) Class {
	addr = addr.Unmap()
	c := classify(addr)
	if addr.Is6() && nat64.Contains(addr) {
		b := addr.As16()
		c |= classify(netip.AddrFrom4([4]byte(b[12:16])))
	}
	return c
}

func classify(addr netip.Addr) Class {
	var c Class
	if addr.IsLoopback() {
		c |= Loopback
	}
	if addr.IsLinkLocalUnicast() {
		c |= LinkLocal
	}
	for _, m := range metadataAddrs {
		if addr == m {
			c |= Metadata
		}
	}
	if addr.IsUnspecified() || thisNetwork.Contains(addr) {
		c |= Unspecified
	}
	if addr.IsPrivate() || sharedCGNAT.Contains(addr) {
		c |= Private
	}
	if addr.IsMulticast() || addr == broadcast {
		c |= Multicast
	}
	return c
}
