package structs

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestParsePortSpec(t *testing.T) {
	got, err := ParsePortSpec(" 22, 80,8000-8002 ")
	must.NoError(t, err)
	must.Eq(t, map[int]bool{22: true, 80: true, 8000: true, 8001: true, 8002: true}, got)

	got, err = ParsePortSpec("")
	must.NoError(t, err)
	must.MapEmpty(t, got)

	for _, bad := range []string{"x", "0", "70000", "10-5", "1-", ",", "1-70000"} {
		_, err := ParsePortSpec(bad)
		must.Error(t, err, must.Sprintf("%q", bad))
	}
}

func TestNode_portsDefaults(t *testing.T) {
	n := &Node{}
	lo, hi := n.DynamicPortRange()
	must.Eq(t, DefaultMinDynamicPort, lo)
	must.Eq(t, DefaultMaxDynamicPort, hi)
	must.MapEmpty(t, n.ReservedPorts())
	must.Eq(t, "", n.HostIP())

	n.NodeResources = &NodeResources{MinDynamicPort: 100, MaxDynamicPort: 200, Networks: []*NetworkResource{{IP: "127.0.0.1"}}}
	n.ReservedResources = &NodeReservedResources{Networks: NodeReservedNetworkResources{ReservedHostPorts: "150"}}
	lo, hi = n.DynamicPortRange()
	must.Eq(t, 100, lo)
	must.Eq(t, 200, hi)
	must.Eq(t, map[int]bool{150: true}, n.ReservedPorts())
	must.Eq(t, "127.0.0.1", n.HostIP())
}
