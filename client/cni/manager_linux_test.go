package cni

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/drover-io/drover/internal/netns"
	"github.com/drover-io/drover/structs"
)

// needBridge skips (or, in CI, fails) a test that needs root and the
// bridge network's plugins.
func needBridge(t *testing.T) {
	t.Helper()
	why := ""
	if os.Geteuid() != 0 {
		why = "CNI tests need root"
	} else if m, err := New(Config{StateDir: t.TempDir()}); err != nil || !slices.Contains(m.Modes(), structs.NetworkModeBridge) {
		why = "CNI tests need the plugins of containernetworking-plugins in " + DefaultPluginPath + " and iptables (scripts/install-deps.sh)"
	}
	if why == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// testManager is a manager on a bridge and subnet of the test's own.
func testManager(t *testing.T) *Manager {
	t.Helper()
	bridge := fmt.Sprintf("drvt%d", os.Getpid()%100000)
	m, err := New(Config{StateDir: t.TempDir(), BridgeName: bridge, BridgeSubnet: "172.31.250.0/24"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The bridge outlives allocations (as Nomad's does); the test's
		// own goes with the test.
		_ = exec.Command("ip", "link", "del", bridge).Run()
		_ = os.RemoveAll(filepath.Join("/var/lib/cni/networks", bridge))
	})
	return m
}

// hostState is what teardown must leave as it found: the interfaces on
// the test's bridge (the host side of each allocation's veth pair; other
// tests on the machine make veths of their own) and the iptables chains
// the plugins make per allocation.
func hostState(t *testing.T, bridge string) (ports, chains []string) {
	t.Helper()
	out, err := exec.Command("ip", "-o", "link", "show", "master", bridge).CombinedOutput()
	if err != nil && !strings.Contains(string(out), "does not exist") {
		t.Fatalf("ip link: %v: %s", err, out)
	}
	if err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if f := strings.Fields(line); len(f) > 1 {
				ports = append(ports, f[1])
			}
		}
	}
	perAlloc := regexp.MustCompile(`^:(CNI-[0-9a-f]{24}|CNI-DN-[0-9a-f]{19,24}|CNI-SN-[0-9a-f]{19,24})\s`)
	for _, table := range []string{"nat", "filter"} {
		out, err := exec.Command("iptables-save", "-t", table).Output()
		if err != nil {
			t.Fatalf("iptables-save: %v", err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if m := perAlloc.FindStringSubmatch(line); m != nil {
				chains = append(chains, table+"/"+m[1])
			}
		}
	}
	slices.Sort(ports)
	slices.Sort(chains)
	return ports, chains
}

// serveIn listens on port in the namespace at path and answers every
// connection with reply.
func serveIn(t *testing.T, path string, port int, reply string) {
	t.Helper()
	var ln net.Listener
	err := netns.Do(path, func() error {
		var err error
		ln, err = net.Listen("tcp", fmt.Sprintf("0.0.0.0:%d", port))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = io.WriteString(c, reply)
			c.Close()
		}
	}()
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func read(addr string) (string, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	b, err := io.ReadAll(io.LimitReader(c, 64))
	return string(b), err
}

// A bridge-mode allocation is reached on its mapped host port over the
// host's loopback, has an address of the subnet, and its teardown leaves
// no namespace, veth or per-allocation chain behind.
func TestBridge_mappedPortAndTeardown(t *testing.T) {
	needBridge(t)
	m := testManager(t)
	_, chains := hostState(t, m.cfg.BridgeName)
	ctx := context.Background()
	id := structs.GenerateUUID()
	host := freePort(t)
	n, err := m.Setup(ctx, Request{AllocID: id, Mode: structs.NetworkModeBridge,
		Ports: []structs.AllocatedPortMapping{{Label: "http", Value: host, To: 8080, HostIP: "127.0.0.1"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Teardown(ctx, id) })
	if !strings.HasPrefix(n.Status.Address, "172.31.250.") || n.Status.InterfaceName != "eth0" {
		t.Fatalf("status %+v: want an address of 172.31.250.0/24 on eth0", n.Status)
	}
	if v, _ := hostState(t, m.cfg.BridgeName); len(v) != 1 {
		t.Fatalf("bridge ports %v, want the allocation's veth", v)
	}
	serveIn(t, n.NetNSPath, 8080, "hello")
	got, err := read(fmt.Sprintf("127.0.0.1:%d", host))
	if err != nil || got != "hello" {
		t.Fatalf("mapped port: got %q, %v", got, err)
	}

	// Set up again (a restored allocation): the same namespace and address.
	again, err := m.Setup(ctx, Request{AllocID: id, Mode: structs.NetworkModeBridge})
	if err != nil || *again != *n {
		t.Fatalf("second setup: %+v, %v; want %+v", again, err, n)
	}
	if left, _ := m.Leftovers(); !slices.Equal(left, []string{id}) {
		t.Fatalf("leftovers %v, want [%s]", left, id)
	}

	if err := m.Teardown(ctx, id); err != nil {
		t.Fatal(err)
	}
	if netns.Exists(n.NetNSPath) {
		t.Fatal("namespace still pinned")
	}
	if v, c := hostState(t, m.cfg.BridgeName); len(v) > 0 || !slices.Equal(c, chains) {
		t.Fatalf("after teardown: bridge ports %v, chains %v; chains before: %v", v, c, chains)
	}
	if left, _ := m.Leftovers(); len(left) != 0 {
		t.Fatalf("leftovers %v after teardown", left)
	}
	if err := m.Teardown(ctx, id); err != nil {
		t.Fatalf("second teardown: %v", err)
	}
}

// A namespace of mode none has loopback and nothing else: the host's
// listener on its own loopback is out of reach.
func TestNone_cannotReachHost(t *testing.T) {
	needBridge(t)
	m := testManager(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx := context.Background()
	id := structs.GenerateUUID()
	n, err := m.Setup(ctx, Request{AllocID: id, Mode: structs.NetworkModeNone})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Teardown(ctx, id) })
	if n.Status != (structs.AllocNetworkStatus{}) {
		t.Fatalf("mode none has status %+v", n.Status)
	}
	serveIn(t, n.NetNSPath, 9000, "inside")
	err = netns.Do(n.NetNSPath, func() error {
		if got, err := read("127.0.0.1:9000"); err != nil || got != "inside" {
			return fmt.Errorf("own loopback: got %q, %v", got, err)
		}
		if _, err := read(ln.Addr().String()); err == nil {
			return fmt.Errorf("reached the host's %s", ln.Addr())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Teardown(ctx, id); err != nil {
		t.Fatal(err)
	}
}

// A cni/<name> network comes from the config directory; a name not there
// is a clear error and leaves nothing behind.
func TestCNINamed(t *testing.T) {
	needBridge(t)
	dir := t.TempDir()
	bridge := fmt.Sprintf("drvc%d", os.Getpid()%100000)
	conf := fmt.Sprintf(`{"cniVersion":"0.4.0","name":"testnet","plugins":[
		{"type":"bridge","bridge":%q,"ipam":{"type":"host-local","subnet":"172.31.251.0/24"}}]}`, bridge)
	if err := os.WriteFile(filepath.Join(dir, "10-testnet.conflist"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = exec.Command("ip", "link", "del", bridge).Run()
		_ = os.RemoveAll("/var/lib/cni/networks/testnet")
	})
	m, err := New(Config{StateDir: t.TempDir(), ConfigDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(m.Modes(), "cni/testnet") {
		t.Fatalf("modes %v lack cni/testnet", m.Modes())
	}
	ctx := context.Background()
	id := structs.GenerateUUID()
	n, err := m.Setup(ctx, Request{AllocID: id, Mode: "cni/testnet", Args: map[string]string{"NOMAD_JOB_ID": "a;b", "NOMAD_ALLOC_ID": id}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(n.Status.Address, "172.31.251.") {
		t.Fatalf("status %+v", n.Status)
	}
	if err := m.Teardown(ctx, id); err != nil {
		t.Fatal(err)
	}
	_, err = m.Setup(ctx, Request{AllocID: id, Mode: "cni/missing"})
	if err == nil || !strings.Contains(err.Error(), `CNI network "missing"`) {
		t.Fatalf("missing network: %v", err)
	}
	if left, _ := m.Leftovers(); len(left) != 0 {
		t.Fatalf("leftovers %v", left)
	}
}

func TestConfigChecks(t *testing.T) {
	for _, c := range []Config{
		{StateDir: "/x", BridgeName: "a-name-far-too-long"},
		{StateDir: "/x", BridgeSubnet: "10.0.0.0/31"},
		{StateDir: "/x", BridgeSubnet: "fd00::/64"},
		{StateDir: "relative"},
	} {
		if _, err := c.withDefaults(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if err := validAllocID("../etc"); err == nil {
		t.Error("alloc ID with a path accepted")
	}
}
