// Package agentproc runs the drover binary as a real agent process, on
// loopback ports, for the black-box tests in e2e/ and the benchmarks in
// bench/: it builds the binary once, starts and stops agents, waits until
// they can take work, and cleans up the task processes they leave behind
// (raw_exec supervisors outlive their agent by design).
package agentproc

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/waitfor"
)

// module is the import path built into the agent binary.
const module = "github.com/drover-io/drover"

var (
	buildOnce sync.Once
	buildDir  string
	buildPath string
	buildErr  error
)

// Build compiles the drover binary into a temporary directory, once per
// process, and returns its path. The binary is static (CGO_ENABLED=0), as
// `make build` makes it: every raw_exec task's supervisor is a re-exec of
// it, and without libc each one is smaller.
func Build() (string, error) {
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "drover-agentproc-bin")
		if buildErr != nil {
			return
		}
		// `go test` puts its own toolchain first on the PATH of the
		// binaries it runs, so the go that builds the tests builds the agent.
		goBin, err := exec.LookPath("go")
		if err != nil {
			buildErr = fmt.Errorf("find the go command to build %s: %w", module, err)
			return
		}
		buildPath = filepath.Join(buildDir, "drover")
		cmd := exec.Command(goBin, "build", "-trimpath", "-o", buildPath, module)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build %s: %v\n%s", module, err, out)
		}
	})
	return buildPath, buildErr
}

// Binary is Build for a test or benchmark, which fails if the build does.
func Binary(tb testing.TB) string {
	tb.Helper()
	path, err := Build()
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// Main is the TestMain of a package whose tests run agents: it builds the
// binary before any test starts, so that a build failure is reported once
// and no test's timing includes it, runs the tests and removes the binary.
// With -short it builds nothing: every such test skips itself.
func Main(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	if _, err := Build(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	RemoveBinary()
	os.Exit(code)
}

// RemoveBinary deletes the binary Build made, if any. A TestMain calls it
// after the tests ran.
func RemoveBinary() {
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
}

// FreePort returns a TCP port on 127.0.0.1 that is free now.
func FreePort(tb testing.TB) int {
	tb.Helper()
	return FreePortOn(tb, "127.0.0.1")
}

// Ports for agents are drawn below Linux's ephemeral range (32768-60999),
// from which the kernel also picks the source port of every outgoing
// connection: a port found free there can be taken by a connection before
// the agent binds it.
const (
	portMin = 20000
	portMax = 32767
)

// FreePortOn returns a TCP port on host, outside the ephemeral range, that
// is free now.
func FreePortOn(tb testing.TB, host string) int {
	tb.Helper()
	var last error
	for range 100 {
		port := portMin + rand.IntN(portMax-portMin+1)
		l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			last = err
			continue
		}
		l.Close()
		return port
	}
	tb.Fatalf("no free port on %s: %v", host, last)
	return 0
}

// Options say how to start an agent.
type Options struct {
	// Dir receives the agent's log file; a new temporary directory when
	// empty.
	Dir string
	// Host is the address the agent's HTTP API is reached at, and its free
	// ports are found on: 127.0.0.1 when empty. An agent on another
	// address is told so in Args (-bind).
	Host string
	// HTTPPort and RPCPort are the ports to listen on; free ones when zero.
	// A restarted agent reuses its predecessor's.
	HTTPPort, RPCPort int
	// Args follow the port flags: "-dev", "-config", a path, ...
	Args []string
	// TaskPath is a path in the command line of each of the agent's task
	// supervisors, such as its alloc dir or data dir. When set, Stop also
	// kills supervisors found by it, and their tasks, even those of an
	// earlier agent on the same directory.
	TaskPath string
	// TLS, when set, is how to reach an agent that serves HTTPS (its
	// tls.http): Addr is then https, and API's client verifies the agent
	// and presents a certificate as it says.
	TLS *api.TLSConfig
	// NetNS, when set, is the path of a network namespace (such as
	// /run/netns/NAME) the agent runs in, entered with nsenter. Host is
	// then an address in that namespace and the ports must be given: no
	// free port can be looked for from outside it.
	NetNS string
	// HTTPClient, when set, is the client API's requests go through, such
	// as one whose transport dials into the agent's network namespace.
	HTTPClient *http.Client
}

// Agent is an agent process under test.
type Agent struct {
	tb       testing.TB
	cmd      *exec.Cmd
	opts     Options
	logPath  string
	started  time.Time
	done     chan struct{}
	stopOnce sync.Once

	// Addr is the agent's HTTP base URL, such as "http://127.0.0.1:4646".
	Addr string
	// HTTPPort and RPCPort are the ports it listens on.
	HTTPPort, RPCPort int
}

// Start starts `drover agent -http-port P -rpc-port R <args>`. The agent,
// and the task processes it leaves behind, are stopped when the test ends.
func Start(tb testing.TB, opts Options) *Agent {
	tb.Helper()
	if opts.Dir == "" {
		opts.Dir = tb.TempDir()
	}
	if opts.Host == "" {
		opts.Host = "127.0.0.1"
	}
	if opts.NetNS != "" && (opts.HTTPPort == 0 || opts.RPCPort == 0) {
		tb.Fatalf("agent in network namespace %s: its ports must be given", opts.NetNS)
	}
	if opts.HTTPPort == 0 {
		opts.HTTPPort = FreePortOn(tb, opts.Host)
	}
	if opts.RPCPort == 0 {
		opts.RPCPort = FreePortOn(tb, opts.Host)
	}
	bin := Binary(tb)
	logPath := filepath.Join(opts.Dir, fmt.Sprintf("agent-%d.log", time.Now().UnixNano()))
	logFile, err := os.Create(logPath)
	if err != nil {
		tb.Fatal(err)
	}
	args := append([]string{"agent",
		"-http-port", strconv.Itoa(opts.HTTPPort),
		"-rpc-port", strconv.Itoa(opts.RPCPort),
	}, opts.Args...)
	cmd, err := command(opts.NetNS, bin, args)
	if err != nil {
		logFile.Close()
		tb.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	a := &Agent{
		tb:       tb,
		cmd:      cmd,
		opts:     opts,
		logPath:  logPath,
		done:     make(chan struct{}),
		Addr:     fmt.Sprintf("%s://%s", scheme(opts.TLS), net.JoinHostPort(opts.Host, strconv.Itoa(opts.HTTPPort))),
		HTTPPort: opts.HTTPPort,
		RPCPort:  opts.RPCPort,
	}
	a.started = time.Now()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		tb.Fatalf("start agent: %v", err)
	}
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(a.done)
	}()
	// Cleanups run last first: the log is shown after the agent stopped,
	// with its shutdown in it.
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("agent %s log (tail):\n%s", a.Addr, a.LogTail())
		}
	})
	tb.Cleanup(a.Stop)
	return a
}

// command runs bin with args, in the network namespace netns when it is
// set. nsenter enters the namespace and execs bin in its own place, so the
// command's process is the agent itself: signals sent to it reach the
// agent, and its children are the agent's.
func command(netns, bin string, args []string) (*exec.Cmd, error) {
	if netns == "" {
		return exec.Command(bin, args...), nil
	}
	nsenter, err := exec.LookPath("nsenter")
	if err != nil {
		return nil, fmt.Errorf("start an agent in network namespace %s: %w", netns, err)
	}
	return exec.Command(nsenter, append([]string{"--net=" + netns, "--", bin}, args...)...), nil
}

// Pid is the agent's process ID.
func (a *Agent) Pid() int { return a.cmd.Process.Pid }

// Started is when the agent process was started.
func (a *Agent) Started() time.Time { return a.started }

// Exited reports whether the agent process has ended.
func (a *Agent) Exited() bool {
	select {
	case <-a.done:
		return true
	default:
		return false
	}
}

// scheme is the scheme of an agent's HTTP API.
func scheme(t *api.TLSConfig) string {
	if t != nil {
		return "https"
	}
	return "http"
}

// API returns a client of the agent's HTTP API.
func (a *Agent) API() *api.Client {
	if a.opts.NetNS != "" && a.opts.HTTPClient == nil {
		// Dialled from the test's own namespace, the agent's address
		// would be routed off the machine.
		a.tb.Fatalf("agent %s runs in network namespace %s: reach it through Options.HTTPClient", a.Addr, a.opts.NetNS)
	}
	c, err := api.NewClient(&api.Config{Address: a.Addr, TLSConfig: a.opts.TLS.Copy(), HttpClient: a.opts.HTTPClient})
	if err != nil {
		a.tb.Fatalf("API client for %s: %v", a.Addr, err)
	}
	return c
}

// Kill sends SIGKILL to the agent alone, as a crash would end it: its
// task supervisors and their tasks live on.
func (a *Agent) Kill() {
	_ = a.cmd.Process.Signal(syscall.SIGKILL)
	<-a.done
}

// stopGrace is how long Stop waits for a graceful shutdown.
const stopGrace = 20 * time.Second

// Stop stops the agent with SIGTERM, or SIGKILL if it has not stopped
// within stopGrace, then kills every task process it left behind: those
// below it when Stop was called, and those found by Options.TaskPath.
// Later calls do nothing.
func (a *Agent) Stop() {
	a.stopOnce.Do(func() {
		left := Descendants(a.Pid())
		select {
		case <-a.done:
		default:
			_ = a.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-a.done:
			case <-time.After(stopGrace):
				_ = a.cmd.Process.Signal(syscall.SIGKILL)
				<-a.done
			}
		}
		if a.opts.TaskPath != "" {
			left = append(left, Matching(a.opts.TaskPath)...)
		}
		KillGroups(left)
	})
}

// LogTail is the end of the agent's log, for failure messages.
func (a *Agent) LogTail() string {
	data, _ := os.ReadFile(a.logPath)
	const keep = 6000
	if len(data) > keep {
		data = data[len(data)-keep:]
	}
	return string(data)
}

// WaitReady waits until the agent has a leader and a ready node, failing
// the test after timeout or as soon as the agent exits.
func (a *Agent) WaitReady(timeout time.Duration) {
	a.tb.Helper()
	a.WaitReadyWith(a.API(), timeout)
}

// WaitReadyWith is WaitReady asking through c, such as a client with a
// token that may list nodes on an agent with ACLs.
func (a *Agent) WaitReadyWith(c *api.Client, timeout time.Duration) {
	a.tb.Helper()
	waitfor.NoError(a.tb, fmt.Sprintf("agent %s to have a leader and a ready node", a.Addr), func() error {
		if a.Exited() {
			a.tb.Fatalf("agent %s exited before it was ready", a.Addr)
		}
		leader, err := c.Status().Leader()
		if err != nil {
			return err
		}
		if leader == "" {
			return errors.New("no leader yet")
		}
		nodes, _, err := c.Nodes().List(nil)
		if err != nil {
			return err
		}
		if len(nodes) == 0 || nodes[0].Status != "ready" {
			return errors.New("no ready node yet")
		}
		return nil
	}, wait.Timeout(timeout), wait.Gap(5*time.Millisecond))
}
