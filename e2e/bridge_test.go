package e2e

import (
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
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/e2e/agentproc"
)

// netHelperEnv makes the test binary a task's network helper (init, below)
// rather than run tests: "serve PORT REPLY" answers every connection on
// PORT with REPLY; "fetch ADDR FILE" reads what ADDR answers into FILE,
// trying for a minute; "probe ADDR FILE" writes to FILE whether ADDR can
// be reached, once. Each then stays alive until killed, as a service task.
const netHelperEnv = "DROVER_E2E_NET_HELPER"

func init() {
	mode := os.Getenv(netHelperEnv)
	if mode == "" {
		return
	}
	args := os.Args[1:]
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "net helper: want two arguments")
		os.Exit(2)
	}
	switch mode {
	case "serve":
		ln, err := net.Listen("tcp", ":"+args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for {
			c, err := ln.Accept()
			if err != nil {
				os.Exit(1)
			}
			_, _ = io.WriteString(c, args[1])
			c.Close()
		}
	case "fetch", "probe":
		result := "unreachable"
		for range 300 {
			c, err := net.DialTimeout("tcp", args[0], time.Second)
			if err == nil {
				b, _ := io.ReadAll(io.LimitReader(c, 256))
				c.Close()
				result = "reached: " + string(b)
				break
			}
			if mode == "probe" {
				result = "unreachable: " + err.Error()
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if err := os.WriteFile(args[1], []byte(result), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	default:
		os.Exit(2)
	}
	for {
		time.Sleep(time.Hour)
	}
}

// requireBridge skips a bridge-mode test where the agent could not make
// network namespaces (root) or run the CNI plugins, except in CI.
func requireBridge(t *testing.T) {
	t.Helper()
	why := ""
	if os.Geteuid() != 0 {
		why = "bridge networking needs root"
	} else if _, err := os.Stat("/usr/lib/cni/portmap"); err != nil {
		why = "bridge networking needs the CNI plugins in /usr/lib/cni (containernetworking-plugins, scripts/install-deps.sh)"
	}
	if why == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// bridgeAgent is a dev agent with a bridge network of the test's own: its
// bridge and subnet differ from the default ones, and the bridge is
// removed when the test ends.
func bridgeAgent(t *testing.T, bridge, subnet string) (*testAgent, string) {
	t.Helper()
	skipShort(t)
	dir := t.TempDir()
	allocDir := filepath.Join(dir, "alloc")
	path := writeFile(t, dir, "agent.hcl", fmt.Sprintf(`client {
  alloc_dir             = %q
  bridge_network_name   = %q
  bridge_network_subnet = %q
}
`, allocDir, bridge, subnet))
	t.Cleanup(func() {
		_ = exec.Command("ip", "link", "del", bridge).Run()
		_ = os.RemoveAll(filepath.Join("/var/lib/cni/networks", bridge))
	})
	a := agentproc.Start(t, agentproc.Options{
		Dir:      dir,
		Args:     []string{"-dev", "-config", path},
		TaskPath: allocDir + string(filepath.Separator),
	})
	return readyAgent(t, a, dir), allocDir
}

// hostNetState is what an allocation's teardown must leave as it found
// it: the interfaces on the test's bridge (the host side of the
// allocations' veth pairs; other tests make veths of their own) and the
// per-allocation iptables chains of the CNI plugins.
func hostNetState(t *testing.T, bridge string) []string {
	t.Helper()
	var state []string
	out, err := exec.Command("ip", "-o", "link", "show", "master", bridge).CombinedOutput()
	if err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if f := strings.Fields(line); len(f) > 1 {
				state = append(state, "bridge port "+f[1])
			}
		}
	} else if !strings.Contains(string(out), "does not exist") {
		t.Fatalf("ip link: %v: %s", err, out)
	}
	perAlloc := regexp.MustCompile(`^:(CNI-[0-9a-f]{24}|CNI-DN-[0-9a-f]{19,24}|CNI-SN-[0-9a-f]{19,24})\s`)
	for _, table := range []string{"nat", "filter"} {
		out, err := exec.Command("iptables-save", "-t", table).Output()
		must.NoError(t, err)
		for _, line := range strings.Split(string(out), "\n") {
			if m := perAlloc.FindStringSubmatch(line); m != nil {
				state = append(state, table+" chain "+m[1])
			}
		}
	}
	slices.Sort(state)
	return state
}

func helperTask(name, mode string, args ...string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = fmt.Sprintf("%q", a)
	}
	self, _ := os.Executable()
	return fmt.Sprintf(`
    task %q {
      driver = "raw_exec"
      config {
        command = %q
        args    = [%s]
      }
      env {
        %s = %q
      }
      resources {
        cpu    = 50
        memory = 32
      }
    }`, name, self, strings.Join(quoted, ", "), netHelperEnv, mode)
}

// TestBridge_MappedPortTasksAndTeardown runs a bridge-mode group of two
// raw_exec tasks: the host reaches the server on its mapped host port over
// loopback, the other task reaches it on the namespace's localhost, the
// allocation reports its address, and once it stops no namespace, veth or
// iptables chain of it is left.
func TestBridge_MappedPortTasksAndTeardown(t *testing.T) {
	requireBridge(t)
	bridge := fmt.Sprintf("drve%d", os.Getpid()%100000)
	before := hostNetState(t, bridge)
	a, allocDir := bridgeAgent(t, bridge, "172.31.252.0/24")
	a.runJob(`job "bridged" {
  group "g" {
    network {
      mode = "bridge"
      port "http" {
        to = 8080
      }
    }` + helperTask("server", "serve", "8080", "hello from the namespace") +
		helperTask("client", "fetch", "127.0.0.1:8080", "${NOMAD_ALLOC_DIR}/fetched") + `
  }
}`)
	alloc := a.waitRunning("bridged")
	ports := slices.DeleteFunc(hostNetState(t, bridge), func(s string) bool { return !strings.HasPrefix(s, "bridge port ") })
	must.SliceLen(t, 1, ports, must.Sprint("the allocation's veth on the bridge"))
	st := alloc.NetworkStatus
	must.NotNil(t, st, must.Sprint("a bridge-mode allocation reports its network status"))
	must.StrHasPrefix(t, "172.31.252.", st.Address)
	must.Eq(t, "eth0", st.InterfaceName)
	var hostPort int
	for _, p := range alloc.AllocatedResources.Shared.Ports {
		if p.Label == "http" {
			hostPort = p.Value
			must.Eq(t, 8080, p.To)
		}
	}
	must.Positive(t, hostPort)

	var got string
	a.waitFor("the mapped host port to answer", 30*time.Second, func() error {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", hostPort), time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		b, err := io.ReadAll(io.LimitReader(c, 256))
		got = string(b)
		if err == nil && got == "" {
			err = fmt.Errorf("%w: empty answer", errNotYet)
		}
		return err
	})
	must.Eq(t, "hello from the namespace", got)

	fetched := filepath.Join(allocDir, alloc.ID, "alloc", "fetched")
	a.waitFor("the client task's fetch over localhost", 60*time.Second, func() error {
		b, err := os.ReadFile(fetched)
		if err != nil {
			return err
		}
		if string(b) != "reached: hello from the namespace" {
			return fmt.Errorf("fetched %q", b)
		}
		return nil
	})

	nsDir := filepath.Join(allocDir, ".cni", "netns")
	entries, err := os.ReadDir(nsDir)
	must.NoError(t, err)
	must.SliceNotEmpty(t, entries)

	_, _, err = a.api.Jobs().Deregister("bridged", true, nil)
	must.NoError(t, err)
	a.waitFor("the allocation's namespace to go", 60*time.Second, func() error {
		entries, err := os.ReadDir(nsDir)
		if err != nil {
			return err
		}
		if len(entries) > 0 {
			return fmt.Errorf("%w: %d entries in %s", errNotYet, len(entries), nsDir)
		}
		return nil
	})
	must.Eq(t, before, hostNetState(t, bridge), must.Sprint("veths and per-allocation chains after teardown"))
}

// TestBridge_NoneCannotReachHost runs a mode "none" group: its task cannot
// reach a listener on the host's loopback.
func TestBridge_NoneCannotReachHost(t *testing.T) {
	requireBridge(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = io.WriteString(c, "host")
			c.Close()
		}
	}()
	a, allocDir := bridgeAgent(t, fmt.Sprintf("drvn%d", os.Getpid()%100000), "172.31.253.0/24")
	a.runJob(`job "isolated" {
  group "g" {
    network {
      mode = "none"
    }` + helperTask("probe", "probe", ln.Addr().String(), "${NOMAD_ALLOC_DIR}/probe") + `
  }
}`)
	alloc := a.waitRunning("isolated")
	must.Eq(t, "", alloc.NetworkStatus.Address, must.Sprint("a none-mode allocation has no address"))
	var got string
	a.waitFor("the probe's result", 60*time.Second, func() error {
		b, err := os.ReadFile(filepath.Join(allocDir, alloc.ID, "alloc", "probe"))
		got = string(b)
		return err
	})
	must.StrHasPrefix(t, "unreachable", got)
}

// TestBridge_AgentRestartKeepsNamespace SIGKILLs an agent whose bridge-mode
// allocation runs: the next agent on the same data dir gives the
// allocation back its namespace and address (the task, re-attached, still
// answers on its mapped port), tears down a namespace left by an
// allocation it does not run, and tears the allocation's down when it
// stops.
func TestBridge_AgentRestartKeepsNamespace(t *testing.T) {
	requireBridge(t)
	skipShort(t)
	bridge := fmt.Sprintf("drvr%d", os.Getpid()%100000)
	before := hostNetState(t, bridge)
	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	config := writeFile(t, dir, "agent.hcl", fmt.Sprintf(`
data_dir  = %q
bind_addr = "127.0.0.1"
server {
  enabled          = true
  bootstrap_expect = 1
}
client {
  enabled               = true
  bridge_network_name   = %q
  bridge_network_subnet = "172.31.249.0/24"
}
plugin "raw_exec" {
  config {
    enabled = true
  }
}
`, dataDir, bridge))
	t.Cleanup(func() {
		_ = exec.Command("ip", "link", "del", bridge).Run()
		_ = os.RemoveAll(filepath.Join("/var/lib/cni/networks", bridge))
	})
	start := func(httpPort, rpcPort int) *testAgent {
		a := agentproc.Start(t, agentproc.Options{
			Dir: dir, HTTPPort: httpPort, RPCPort: rpcPort,
			Args:     []string{"-config", config},
			TaskPath: filepath.Join(dataDir, "alloc") + string(filepath.Separator),
		})
		return readyAgent(t, a, dir)
	}
	dial := func(a *testAgent, port int) {
		a.t.Helper()
		a.waitFor("the mapped host port to answer", 30*time.Second, func() error {
			c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
			if err != nil {
				return err
			}
			defer c.Close()
			b, err := io.ReadAll(io.LimitReader(c, 256))
			if err == nil && string(b) != "still here" {
				err = fmt.Errorf("%w: answer %q", errNotYet, b)
			}
			return err
		})
	}

	first := start(0, 0)
	first.runJob(`job "restored" {
  group "g" {
    network {
      mode = "bridge"
      port "http" {
        to = 8080
      }
    }` + helperTask("server", "serve", "8080", "still here") + `
  }
}`)
	running := first.waitRunning("restored")
	must.NotNil(t, running.NetworkStatus)
	hostPort := running.AllocatedResources.Shared.Ports[0].Value
	dial(first, hostPort)
	first.Kill()

	// A namespace of an allocation the next agent does not run.
	nsDir := filepath.Join(dataDir, "client", "cni", "netns")
	orphan := filepath.Join(nsDir, "00000000-0000-4000-8000-000000000000")
	must.NoError(t, exec.Command("ip", "netns", "add", "drover-e2e-orphan").Run())
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", "drover-e2e-orphan").Run() })
	must.NoError(t, os.WriteFile(orphan, nil, 0o444))
	must.NoError(t, exec.Command("mount", "--bind", "/var/run/netns/drover-e2e-orphan", orphan).Run())
	t.Cleanup(func() { _ = exec.Command("umount", orphan).Run() })

	second := start(first.HTTPPort, first.RPCPort)
	second.waitFor("the orphan namespace to go", 60*time.Second, func() error {
		if _, err := os.Stat(orphan); err == nil {
			return fmt.Errorf("%w: %s still there", errNotYet, orphan)
		}
		return nil
	})
	dial(second, hostPort)
	again := second.waitAlloc(running.ID, "running", 30*time.Second, clientStatus("running"))
	must.Eq(t, running.NetworkStatus.Address, again.NetworkStatus.Address)
	started := 0
	for _, ev := range again.TaskStates["server"].Events {
		if ev.Type == "Started" {
			started++
		}
	}
	must.Eq(t, 1, started, must.Sprint("the task was re-attached, not started again"))

	_, _, err := second.api.Jobs().Deregister("restored", true, nil)
	must.NoError(t, err)
	second.waitFor("the allocation's namespace to go", 60*time.Second, func() error {
		entries, err := os.ReadDir(nsDir)
		if err != nil {
			return err
		}
		if len(entries) > 0 {
			return fmt.Errorf("%w: %d entries in %s", errNotYet, len(entries), nsDir)
		}
		return nil
	})
	must.Eq(t, before, hostNetState(t, bridge), must.Sprint("bridge ports and per-allocation chains after teardown"))
}
