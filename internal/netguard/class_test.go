package netguard

import (
	"net/netip"
	"testing"

	"github.com/shoenig/test/must"
)

func TestClassify(t *testing.T) {
	cases := map[string]Class{
		"127.0.0.1":                       Loopback,
		"127.255.0.9":                     Loopback,
		"::1":                             Loopback,
		"::ffff:127.0.0.1":                Loopback,
		"169.254.1.1":                     LinkLocal,
		"169.254.169.254":                 LinkLocal | Metadata,
		"::ffff:169.254.169.254":          LinkLocal | Metadata,
		"169.254.170.2":                   LinkLocal | Metadata,
		"fe80::1":                         LinkLocal,
		"fe80::1%eth0":                    LinkLocal,
		"fd00:ec2::254":                   Private | Metadata,
		"100.100.100.200":                 Private | Metadata,
		"0.0.0.0":                         Unspecified,
		"0.1.2.3":                         Unspecified,
		"::":                              Unspecified,
		"::ffff:0.0.0.0":                  Unspecified,
		"10.0.0.1":                        Private,
		"172.16.0.1":                      Private,
		"172.31.255.255":                  Private,
		"192.168.1.1":                     Private,
		"100.64.0.1":                      Private,
		"100.127.255.255":                 Private,
		"fc00::1":                         Private,
		"fdab::1":                         Private,
		"::ffff:10.1.2.3":                 Private,
		"224.0.0.1":                       Multicast,
		"239.255.255.250":                 Multicast,
		"255.255.255.255":                 Multicast,
		"ff02::1":                         Multicast,
		"64:ff9b::7f00:1":                 Loopback,
		"64:ff9b::a9fe:a9fe":              LinkLocal | Metadata,
		"64:ff9b::808:808":                0,
		"8.8.8.8":                         0,
		"172.32.0.1":                      0,
		"100.128.0.1":                     0,
		"192.0.2.1":                       0,
		"2001:db8::1":                     0,
		"::ffff:8.8.8.8":                  0,
		"2a00:1450:4001:80b::200e":        0,
		"fec0::1":                         0, // deprecated site-local: routed as global
		"1.1.1.1":                         0,
		"169.253.255.255":                 0,
		"11.0.0.1":                        0,
		"126.255.255.255":                 0,
		"128.0.0.1":                       0,
		"223.255.255.255":                 0,
		"240.0.0.1":                       0,
		"2001:4860:4860::8888":            0,
		"febf:ffff:ffff:ffff:ffff:ffff::": LinkLocal,
		"fec0::":                          0,
	}
	for s, want := range cases {
		must.Eq(t, want, Classify(netip.MustParseAddr(s)), must.Sprintf("%s: got %s, want %s", s, Classify(netip.MustParseAddr(s)), want))
	}
}

func TestParseClass(t *testing.T) {
	for c := Loopback; c < classEnd; c <<= 1 {
		got, err := ParseClass(c.String())
		must.NoError(t, err)
		must.Eq(t, c, got)
	}
	_, err := ParseClass("internal")
	must.EqError(t, err, `"internal" is not a class of address (loopback, link_local, metadata, unspecified, private, multicast)`)
	must.Eq(t, "public", Class(0).String())
	must.Eq(t, "link_local+metadata", (LinkLocal | Metadata).String())
}
