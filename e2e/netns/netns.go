package netns

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// namePrefix starts the name of every namespace this package makes; the ID
// of the test process that made it follows, so that the namespaces of a
// process that no longer runs (one that go test's timeout killed before
// its cleanups ran) can be told apart and removed.
const namePrefix = "drvnet"

// bridgeName is the bridge in the bridge namespace; hostLink is each host's
// veth in its own namespace.
const (
	bridgeName = "br0"
	hostLink   = "eth0"
)

// nets numbers the Nets of this process, whose namespaces' names must
// differ.
var nets atomic.Int64

// Net is a test's network: a bridge, in a namespace of its own, and the
// hosts attached to it.
type Net struct {
	t      testing.TB
	prefix netip.Prefix
	// name starts the names of the Net's namespaces: namePrefix, the
	// process ID and the Net's number.
	name   string
	bridge string

	mu   sync.Mutex
	cuts map[[2]*Host]bool
}

// Host is a network namespace on the bridge: lo, and a veth with the
// host's address.
type Host struct {
	// Name names the host and its veth's peer on the bridge.
	Name string
	// IP is the host's address on the bridge.
	IP netip.Addr

	net *Net
	ns  string
	// file is the namespace, held open for dialing into it.
	file *os.File

	transportOnce sync.Once
	transport     *http.Transport
}

// New makes a network whose hosts' addresses are in prefix, with the
// bridge up and no host yet. It first removes the namespaces of test
// processes that no longer run. The test is skipped (failed in CI) when
// it cannot make a namespace.
func New(t testing.TB, prefix netip.Prefix) *Net {
	t.Helper()
	Require(t)
	removeAbandoned(t)
	n := &Net{
		t:      t,
		prefix: prefix.Masked(),
		name:   fmt.Sprintf("%s%d-%d", namePrefix, os.Getpid(), nets.Add(1)),
		cuts:   map[[2]*Host]bool{},
	}
	n.bridge = n.name + "-br"
	if err := ip("netns", "add", n.bridge); err != nil {
		unavailable(t, err.Error())
	}
	t.Cleanup(func() { n.remove(n.bridge) })
	n.must(ip("-n", n.bridge, "link", "add", bridgeName, "type", "bridge"))
	n.must(ip("-n", n.bridge, "link", "set", bridgeName, "up"))
	return n
}

// AddHost makes a host named name (at most 15 bytes: it names an
// interface) at addr, which must be in the network's prefix, and attaches
// it to the bridge. Its namespace is removed when the test ends, after the
// cleanups registered later (the processes started in it) have run.
func (n *Net) AddHost(name string, addr netip.Addr) *Host {
	n.t.Helper()
	if len(name) == 0 || len(name) > 15 {
		n.t.Fatalf("host name %q: want 1 to 15 bytes, an interface is named after it", name)
	}
	if !n.prefix.Contains(addr) {
		n.t.Fatalf("host %s at %s: outside the network's %s", name, addr, n.prefix)
	}
	h := &Host{Name: name, IP: addr, net: n, ns: n.name + "-" + name}
	n.must(ip("netns", "add", h.ns))
	n.t.Cleanup(func() { h.remove() })
	n.must(ip("-n", n.bridge, "link", "add", "name", name, "type", "veth", "peer", "name", hostLink, "netns", h.ns))
	n.must(ip("-n", n.bridge, "link", "set", "dev", name, "master", bridgeName))
	n.must(ip("-n", n.bridge, "link", "set", "dev", name, "up"))
	n.must(ip("-n", h.ns, "addr", "add", netip.PrefixFrom(addr, n.prefix.Bits()).String(), "dev", hostLink))
	n.must(ip("-n", h.ns, "link", "set", hostLink, "up"))
	n.must(ip("-n", h.ns, "link", "set", "lo", "up"))
	f, err := os.Open(h.Path())
	if err != nil {
		n.t.Fatalf("open namespace of host %s: %v", name, err)
	}
	h.file = f
	return h
}

// Path is the host's namespace as a file, for nsenter --net.
func (h *Host) Path() string { return "/run/netns/" + h.ns }

// remove closes what the test process holds in the host's namespace and
// deletes the namespace, and with it its veth and the veth's peer.
func (h *Host) remove() {
	if h.transport != nil {
		h.transport.CloseIdleConnections()
	}
	if h.file != nil {
		h.file.Close()
	}
	h.net.remove(h.ns)
}

// remove deletes the namespace named ns.
func (n *Net) remove(ns string) {
	if err := ip("netns", "delete", ns); err != nil {
		n.t.Errorf("remove network namespace: %v", err)
	}
}

// must fails the test on err, the error of a step of the network's set-up.
func (n *Net) must(err error) {
	n.t.Helper()
	if err != nil {
		n.t.Fatalf("set up the test network: %v", err)
	}
}

// ip runs the ip command with args.
func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// removeAbandoned deletes the namespaces this package made in test
// processes that no longer run, and kills the processes left in them (the
// agents a killed test started, and their tasks), which would keep them
// alive. A process ID reused since is taken for the process that made
// them, and its namespaces are left alone.
func removeAbandoned(t testing.TB) {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return // New's own `ip netns add` says what is wrong
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		pid, ok := maker(fields[0])
		if !ok {
			continue
		}
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
			continue
		}
		killIn(fields[0])
		if err := ip("netns", "delete", fields[0]); err != nil {
			t.Logf("remove an abandoned network namespace: %v", err)
		}
	}
}

// killIn sends SIGKILL to every process in the namespace named ns.
func killIn(ns string) {
	out, err := exec.Command("ip", "netns", "pids", ns).Output()
	if err != nil {
		return
	}
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 && pid != os.Getpid() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// maker is the ID of the process that made the namespace named name, if
// this package made it.
func maker(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, namePrefix)
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}
