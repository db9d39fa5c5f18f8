package netguard

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// DefaultDenylist is what a policy refuses unless the operator says
// otherwise: the client's own machine, the cloud's metadata and
// credentials, and addresses nothing should serve an HTTP fetch from.
// Private networks are not in it: artifact stores live there.
var DefaultDenylist = []string{"loopback", "link_local", "metadata", "unspecified", "multicast"}

// Policy says which addresses a fetch may connect to. An address is
// refused when it belongs to a denied class or lies in a denied range,
// unless it lies in an allowed range. A Policy never changes once made.
type Policy struct {
	denyClasses Class
	denyRanges  []netip.Prefix
	allow       []netip.Prefix
	// denylist and allowlist are the entries as given, for messages and
	// for a configuration that changes one list and keeps the other.
	denylist, allowlist []string
}

// DefaultPolicy refuses DefaultDenylist and allows nothing more.
func DefaultPolicy() *Policy {
	return &Policy{
		denyClasses: Loopback | LinkLocal | Metadata | Unspecified | Multicast,
		denylist:    slices.Clone(DefaultDenylist),
	}
}

// NewPolicy reads a denylist, whose entries are class names (see
// ParseClass) or ranges in CIDR notation, and an allowlist of ranges or
// single addresses that pass though the denylist refuses them. An empty
// denylist refuses nothing.
func NewPolicy(denylist, allowlist []string) (*Policy, error) {
	p := &Policy{denylist: slices.Clone(denylist), allowlist: slices.Clone(allowlist)}
	for _, entry := range denylist {
		if strings.Contains(entry, "/") {
			prefix, err := parsePrefix(entry)
			if err != nil {
				return nil, fmt.Errorf("denylist entry %q: %w", entry, err)
			}
			p.denyRanges = append(p.denyRanges, prefix)
			continue
		}
		c, err := ParseClass(entry)
		if err != nil {
			return nil, fmt.Errorf("denylist entry: %w, nor a range such as 10.0.0.0/8", err)
		}
		p.denyClasses |= c
	}
	for _, entry := range allowlist {
		prefix, err := parsePrefix(entry)
		if err != nil {
			return nil, fmt.Errorf("allowlist entry %q: %w", entry, err)
		}
		p.allow = append(p.allow, prefix)
	}
	return p, nil
}

// parsePrefix reads a range in CIDR notation or a single address.
func parsePrefix(s string) (netip.Prefix, error) {
	if !strings.Contains(s, "/") {
		addr, err := netip.ParseAddr(s)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("not an IP address or a range in CIDR notation")
		}
		return netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen()), nil
	}
	prefix, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("not a range in CIDR notation, such as 10.1.2.0/24")
	}
	if prefix.Addr().Is4In6() {
		return netip.Prefix{}, fmt.Errorf("write IPv4 ranges in IPv4 notation")
	}
	return prefix.Masked(), nil
}

// WithAllowed returns a copy of p that also lets the given ranges
// through.
func (p *Policy) WithAllowed(ranges ...netip.Prefix) *Policy {
	q := *p
	q.denyRanges = slices.Clone(p.denyRanges)
	q.denylist = slices.Clone(p.denylist)
	q.allow = slices.Clone(p.allow)
	q.allowlist = slices.Clone(p.allowlist)
	for _, r := range ranges {
		q.allow = append(q.allow, r.Masked())
		q.allowlist = append(q.allowlist, r.Masked().String())
	}
	return &q
}

// Denylist and Allowlist are the lists the policy was made from.
func (p *Policy) Denylist() []string  { return slices.Clone(p.denylist) }
func (p *Policy) Allowlist() []string { return slices.Clone(p.allowlist) }

// Check returns a *RefusedError when the policy refuses addr, nil when it
// may be connected to.
func (p *Policy) Check(addr netip.AddrPort) error {
	// A zoned address (fe80::1%eth0) is matched without its zone: a
	// prefix never contains one.
	ip := addr.Addr().Unmap().WithZone("")
	for _, r := range p.allow {
		if r.Contains(ip) {
			return nil
		}
	}
	if c := Classify(ip) & p.denyClasses; c != 0 {
		return &RefusedError{Addr: addr, Class: c}
	}
	for _, r := range p.denyRanges {
		if r.Contains(ip) {
			return &RefusedError{Addr: addr, Range: r}
		}
	}
	return nil
}

// RefusedError is a connection the policy refused before it was made:
// nothing was sent, so nothing tells whether anything listens there.
type RefusedError struct {
	Addr netip.AddrPort
	// Class is the denied classes Addr belongs to, or zero when Range
	// refused it.
	Class Class
	Range netip.Prefix
}

func (e *RefusedError) Error() string {
	ip := e.Addr.Addr().Unmap()
	if e.Class != 0 {
		return fmt.Sprintf("connection to %s (%s) refused by the client's policy", ip, e.Class)
	}
	return fmt.Sprintf("connection to %s (in the denied range %s) refused by the client's policy", ip, e.Range)
}
