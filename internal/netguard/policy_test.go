package netguard

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/shoenig/test/must"
)

func TestDefaultPolicy_isTheDefaultDenylist(t *testing.T) {
	p, err := NewPolicy(DefaultDenylist, nil)
	must.NoError(t, err)
	must.Eq(t, p, DefaultPolicy())
	must.Eq(t, DefaultDenylist, DefaultPolicy().Denylist())
	must.SliceEmpty(t, DefaultPolicy().Allowlist())
}

func TestPolicy_Check(t *testing.T) {
	strict, err := NewPolicy([]string{"loopback", "link_local", "metadata", "unspecified", "private", "multicast", "198.51.100.0/24"},
		[]string{"10.1.2.3", "fd00:1::/64", "127.0.0.2/32"})
	must.NoError(t, err)

	cases := []struct {
		policy *Policy
		addr   string
		// want is the error's message; empty is allowed.
		want string
	}{
		{DefaultPolicy(), "127.0.0.1:80", "connection to 127.0.0.1 (loopback) refused by the client's policy"},
		{DefaultPolicy(), "[::ffff:127.0.0.1]:80", "connection to 127.0.0.1 (loopback) refused by the client's policy"},
		{DefaultPolicy(), "[::1]:80", "connection to ::1 (loopback) refused by the client's policy"},
		{DefaultPolicy(), "169.254.169.254:80", "connection to 169.254.169.254 (link_local+metadata) refused by the client's policy"},
		{DefaultPolicy(), "[fd00:ec2::254]:80", "connection to fd00:ec2::254 (metadata) refused by the client's policy"},
		{DefaultPolicy(), "[fe80::1%eth0]:80", "connection to fe80::1%eth0 (link_local) refused by the client's policy"},
		{DefaultPolicy(), "0.0.0.0:80", "connection to 0.0.0.0 (unspecified) refused by the client's policy"},
		{DefaultPolicy(), "255.255.255.255:80", "connection to 255.255.255.255 (multicast) refused by the client's policy"},
		{DefaultPolicy(), "10.0.0.1:80", ""},
		{DefaultPolicy(), "[fd12::1]:80", ""},
		{DefaultPolicy(), "8.8.8.8:443", ""},

		{strict, "10.0.0.1:80", "connection to 10.0.0.1 (private) refused by the client's policy"},
		{strict, "10.1.2.3:80", ""},
		{strict, "[::ffff:10.1.2.3]:80", ""},
		{strict, "[fd00:1::9]:80", ""},
		{strict, "[fd00:2::9]:80", "connection to fd00:2::9 (private) refused by the client's policy"},
		{strict, "127.0.0.2:80", ""},
		{strict, "127.0.0.3:80", "connection to 127.0.0.3 (loopback) refused by the client's policy"},
		{strict, "198.51.100.7:80", "connection to 198.51.100.7 (in the denied range 198.51.100.0/24) refused by the client's policy"},
		{strict, "198.51.101.7:80", ""},
		{strict, "[64:ff9b::a00:1]:80", "connection to 64:ff9b::a00:1 (private) refused by the client's policy"},
	}
	for _, c := range cases {
		err := c.policy.Check(netip.MustParseAddrPort(c.addr))
		if c.want == "" {
			must.NoError(t, err, must.Sprint(c.addr))
			continue
		}
		must.EqError(t, err, c.want, must.Sprint(c.addr))
		var refused *RefusedError
		must.True(t, errors.As(err, &refused))
	}

	none, err := NewPolicy(nil, nil)
	must.NoError(t, err)
	must.NoError(t, none.Check(netip.MustParseAddrPort("127.0.0.1:80")))
}

func TestNewPolicy_Errors(t *testing.T) {
	cases := []struct {
		deny, allow []string
		want        string
	}{
		{[]string{"internal"}, nil, `denylist entry: "internal" is not a class of address (loopback, link_local, metadata, unspecified, private, multicast), nor a range such as 10.0.0.0/8`},
		{[]string{"10.0.0.0/33"}, nil, `denylist entry "10.0.0.0/33": not a range in CIDR notation, such as 10.1.2.0/24`},
		{nil, []string{"localhost"}, `allowlist entry "localhost": not an IP address or a range in CIDR notation`},
		{nil, []string{"loopback"}, `allowlist entry "loopback": not an IP address or a range in CIDR notation`},
		{nil, []string{"::ffff:10.0.0.0/104"}, `allowlist entry "::ffff:10.0.0.0/104": write IPv4 ranges in IPv4 notation`},
	}
	for _, c := range cases {
		_, err := NewPolicy(c.deny, c.allow)
		must.EqError(t, err, c.want)
	}
}

func TestPolicy_WithAllowed(t *testing.T) {
	base := DefaultPolicy()
	p := base.WithAllowed(netip.MustParsePrefix("127.0.0.1/8"), netip.MustParsePrefix("::1/128"))
	must.Eq(t, []string{"127.0.0.0/8", "::1/128"}, p.Allowlist())
	must.Eq(t, DefaultDenylist, p.Denylist())
	must.NoError(t, p.Check(netip.MustParseAddrPort("127.9.9.9:80")))
	must.NoError(t, p.Check(netip.MustParseAddrPort("[::1]:80")))
	must.Error(t, p.Check(netip.MustParseAddrPort("169.254.169.254:80")))
	// The policy it came from is unchanged.
	must.Error(t, base.Check(netip.MustParseAddrPort("127.9.9.9:80")))
	must.SliceEmpty(t, base.Allowlist())
}
