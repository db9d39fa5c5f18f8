package nomad

import (
	"net"
	"testing"

	"github.com/shoenig/test/must"
)

func TestNormalizeServerAddr(t *testing.T) {
	cases := []struct {
		in, want, err string
	}{
		{in: "10.0.0.1", want: "10.0.0.1:4647"},
		{in: "10.0.0.1:5000", want: "10.0.0.1:5000"},
		{in: " server.example.com ", want: "server.example.com:4647"},
		{in: "::1", want: "[::1]:4647"},
		{in: "[::1]", want: "[::1]:4647"},
		{in: "[::1]:5000", want: "[::1]:5000"},
		{in: "", err: "empty server address"},
		{in: ":4647", err: "no host"},
		{in: "host:http", err: "port must be a number"},
		{in: "host:70000", err: "port must be a number"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := normalizeServerAddr(tc.in)
			if tc.err != "" {
				must.ErrorContains(t, err, tc.err)
				return
			}
			must.NoError(t, err)
			must.Eq(t, tc.want, got)
		})
	}
}

func TestAdvertiseAddr(t *testing.T) {
	bound := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4000}
	got, err := advertiseAddr("", bound)
	must.NoError(t, err)
	must.Eq(t, "127.0.0.1:4000", got)

	got, err = advertiseAddr("10.1.2.3", bound)
	must.NoError(t, err)
	must.Eq(t, "10.1.2.3:4647", got)

	_, err = advertiseAddr("", &net.TCPAddr{IP: net.IPv4zero, Port: 4647})
	must.ErrorContains(t, err, "advertise address")
}

func TestConfig_WithDefaults(t *testing.T) {
	join := []string{"10.0.0.1"}
	cfg := (&Config{ServerJoin: join}).withDefaults()
	must.Eq(t, "global", cfg.Region)
	must.Eq(t, "dc1", cfg.Datacenter)
	must.NotNil(t, cfg.Logger)
	must.NotNil(t, cfg.RaftConfig)
	must.Eq(t, DefaultRPCPort, cfg.RPCAddr.Port)
	must.Positive(t, cfg.JoinInterval)
	cfg.ServerJoin[0] = "changed"
	must.Eq(t, "10.0.0.1", join[0], must.Sprint("the caller's slice must not be shared"))
}
