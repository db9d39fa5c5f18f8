package client

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func TestHostNetwork(t *testing.T) {
	n, err := hostNetwork("", "127.0.0.1:4646")
	must.NoError(t, err)
	must.Eq(t, &structs.NetworkResource{Mode: "host", IP: "127.0.0.1", Device: "lo", CIDR: "127.0.0.0/8"}, n)

	n, err = hostNetwork("", "0.0.0.0:4646")
	must.NoError(t, err)
	must.Eq(t, defaultRouteAddr().String(), n.IP, must.Sprint("an unspecified address gives the default route's"))
	must.NotEq(t, "0.0.0.0", n.IP)

	n, err = hostNetwork("lo", "192.0.2.1:4646")
	must.NoError(t, err)
	must.Eq(t, &structs.NetworkResource{Mode: "host", IP: "127.0.0.1", Device: "lo", CIDR: "127.0.0.0/8"}, n)

	_, err = hostNetwork("no-such-interface0", "")
	must.ErrorContains(t, err, `network_interface "no-such-interface0"`)
}
