package docker

import (
	"io"
	"net"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/moby/moby/api/types/network"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/internal/dockertest"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

func TestCreateOptions_Ports(t *testing.T) {
	cfg := specTask()
	cfg.Ports = []structs.AllocatedPortMapping{
		{Label: "http", Value: 23456, To: 80, HostIP: "127.0.0.1"},
		{Label: "metrics", Value: 23457, To: 23457, HostIP: "127.0.0.1"},
		{Label: "other", Value: 23458, To: 23458, HostIP: "127.0.0.1"},
	}
	cfg.DNS = &structs.DNSConfig{Servers: []string{"192.0.2.53"}, Searches: []string{"example.com"}, Options: []string{"ndots:2"}}
	opts, _, err := createOptions(cfg, specConfig(t, map[string]any{"ports": []any{"http", "metrics"}}), DefaultPluginConfig())
	must.NoError(t, err)
	lo := netip.MustParseAddr("127.0.0.1")
	must.Eq(t, network.PortMap{
		network.MustParsePort("80/tcp"):    {{HostIP: lo, HostPort: "23456"}},
		network.MustParsePort("80/udp"):    {{HostIP: lo, HostPort: "23456"}},
		network.MustParsePort("23457/tcp"): {{HostIP: lo, HostPort: "23457"}},
		network.MustParsePort("23457/udp"): {{HostIP: lo, HostPort: "23457"}},
	}, opts.HostConfig.PortBindings)
	must.MapLen(t, 4, opts.Config.ExposedPorts)
	must.MapContainsKey(t, opts.Config.ExposedPorts, network.MustParsePort("80/tcp"))
	must.Eq(t, []netip.Addr{netip.MustParseAddr("192.0.2.53")}, opts.HostConfig.DNS)
	must.Eq(t, []string{"example.com"}, opts.HostConfig.DNSSearch)
	must.Eq(t, []string{"ndots:2"}, opts.HostConfig.DNSOptions)

	_, _, err = createOptions(cfg, specConfig(t, map[string]any{"ports": []any{"nope"}}), DefaultPluginConfig())
	must.EqError(t, err, `config key "ports": port "nope" is not a port of the group's network block (nor of the task's)`)

	// No ports asked: nothing is published.
	opts, _, err = createOptions(cfg, specConfig(t, map[string]any{}), DefaultPluginConfig())
	must.NoError(t, err)
	must.MapEmpty(t, opts.HostConfig.PortBindings)
}

// TestCreateOptions_PortMap: port_map publishes the ports it names too,
// each to the container port it gives, over a port's `to`.
func TestCreateOptions_PortMap(t *testing.T) {
	cfg := specTask()
	cfg.Ports = []structs.AllocatedPortMapping{
		{Label: "proxy", Value: 80, HostIP: "127.0.0.1"},
		{Label: "admin", Value: 23457, To: 9000, HostIP: "127.0.0.1"},
		{Label: "http", Value: 23458, To: 8000, HostIP: "127.0.0.1"},
	}
	opts, _, err := createOptions(cfg, specConfig(t, map[string]any{
		"ports":    []any{"http"},
		"port_map": []any{map[string]any{"proxy": 8081, "admin": 8080}},
	}), DefaultPluginConfig())
	must.NoError(t, err)
	lo := netip.MustParseAddr("127.0.0.1")
	must.Eq(t, network.PortMap{
		network.MustParsePort("8000/tcp"): {{HostIP: lo, HostPort: "23458"}},
		network.MustParsePort("8000/udp"): {{HostIP: lo, HostPort: "23458"}},
		network.MustParsePort("8080/tcp"): {{HostIP: lo, HostPort: "23457"}},
		network.MustParsePort("8080/udp"): {{HostIP: lo, HostPort: "23457"}},
		network.MustParsePort("8081/tcp"): {{HostIP: lo, HostPort: "80"}},
		network.MustParsePort("8081/udp"): {{HostIP: lo, HostPort: "80"}},
	}, opts.HostConfig.PortBindings)
	must.MapLen(t, 6, opts.Config.ExposedPorts)

	_, _, err = createOptions(cfg, specConfig(t, map[string]any{"port_map": map[string]any{"nope": 80}}), DefaultPluginConfig())
	must.EqError(t, err, `config key "port_map": port "nope" is not a port of the group's network block (nor of the task's)`)
}

// TestDriver_PublishesPortMap: a port named in port_map alone is
// published, the host port forwarding to the container port it gives.
func TestDriver_PublishesPortMap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	hostPort := l.Addr().(*net.TCPAddr).Port
	must.NoError(t, l.Close())

	cfg, _ := newTaskConfig(t, e.image.Ref, "serve", "8080", "hello through port_map", "sleep", "100s")
	cfg.Config["port_map"] = []any{map[string]any{"proxy": 8080}}
	cfg.Ports = []structs.AllocatedPortMapping{{Label: "proxy", Value: hostPort, HostIP: "127.0.0.1"}}
	startTask(t, d, cfg)
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })

	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(hostPort))
	var got string
	waitfor.True(t, "the container answers on "+addr, func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return false
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		b, _ := io.ReadAll(c)
		got = string(b)
		return got != ""
	}, wait.Timeout(exitTimeout), wait.Gap(50*time.Millisecond))
	must.Eq(t, "hello through port_map", got)
	must.NoError(t, d.StopTask(cfg.ID, time.Second, "SIGTERM"))
}

// TestDriver_PublishesPorts: a container whose task names a group port
// in `ports` is reached on the host port, at the host's address
// (loopback here), on the port's `to` inside.
func TestDriver_PublishesPorts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	hostPort := l.Addr().(*net.TCPAddr).Port
	must.NoError(t, l.Close())

	cfg, _ := newTaskConfig(t, e.image.Ref, "serve", "8080", "hello from the container", "sleep", "100s")
	cfg.Config["ports"] = []any{"http"}
	cfg.Ports = []structs.AllocatedPortMapping{{Label: "http", Value: hostPort, To: 8080, HostIP: "127.0.0.1"}}
	startTask(t, d, cfg)
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })

	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(hostPort))
	var got string
	waitfor.True(t, "the container answers on "+addr, func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return false
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		b, _ := io.ReadAll(c)
		got = string(b)
		return got != ""
	}, wait.Timeout(exitTimeout), wait.Gap(50*time.Millisecond))
	must.Eq(t, "hello from the container", got)
	must.NoError(t, d.StopTask(cfg.ID, time.Second, "SIGTERM"))
}
