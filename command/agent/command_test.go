package agent

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/cli"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/waitfor"
)

// lockedUi is a cli.Ui whose output a test may read while the command
// runs.
type lockedUi struct {
	mu  sync.Mutex
	out strings.Builder
	err strings.Builder
}

var _ cli.Ui = (*lockedUi)(nil)

func (u *lockedUi) Ask(string) (string, error)       { return "", nil }
func (u *lockedUi) AskSecret(string) (string, error) { return "", nil }
func (u *lockedUi) Output(s string)                  { u.write(&u.out, s) }
func (u *lockedUi) Info(s string)                    { u.write(&u.out, s) }
func (u *lockedUi) Error(s string)                   { u.write(&u.err, s) }
func (u *lockedUi) Warn(s string)                    { u.write(&u.err, s) }

func (u *lockedUi) write(b *strings.Builder, s string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	b.WriteString(s)
	b.WriteByte('\n')
}

func (u *lockedUi) Out() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.out.String()
}

func (u *lockedUi) Err() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.err.String()
}

func TestCommand_BadConfigExitsWithoutStarting(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{
			name: "unknown key",
			args: []string{"-config", writeFile(t, dir, "bad.hcl", "data_dir = \"/tmp/x\"\nserver {\n  enabled = true\n  bogus = 1\n}\n")},
			want: []string{"bad.hcl:4,3", "bogus"},
		},
		{
			name: "bad duration",
			args: []string{"-config", writeFile(t, dir, "dur.hcl", "telemetry {\n  collection_interval = \"often\"\n}\n")},
			want: []string{"dur.hcl:2,", "collection_interval"},
		},
		{
			name: "nothing enabled",
			args: []string{"-data-dir", dir},
			want: []string{"at least one of server or client must be enabled"},
		},
		{
			name: "no data dir",
			args: []string{"-server"},
			want: []string{"data_dir is required"},
		},
		{
			name: "missing file",
			args: []string{"-config", filepath.Join(dir, "absent.hcl")},
			want: []string{"absent.hcl"},
		},
		{
			name: "unknown flag",
			args: []string{"-frobnicate"},
			want: []string{"frobnicate"},
		},
		{
			name: "stray argument",
			args: []string{"-dev", "extra"},
			want: []string{"unexpected arguments: extra"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ui := &lockedUi{}
			code := (&Command{Ui: ui}).Run(tc.args)
			must.Eq(t, 1, code)
			for _, want := range tc.want {
				must.StrContains(t, ui.Err(), want)
			}
			must.StrNotContains(t, ui.Out(), "Starting Drover agent")
			must.StrNotContains(t, ui.Out(), "agent started")
		})
	}
}

func TestCommand_FlagsOverrideFiles(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "agent.hcl", `
region   = "file-region"
data_dir = "/from/file"
server {
  enabled    = true
  retry_join = ["a"]
}`)
	cfg, err := loadConfig([]string{
		"-config", path, "-region", "flag-region", "-dc", "dc9", "-node", "n1",
		"-retry-join", "b", "-retry-join", "c", "-http-port", "0", "-client", "-servers", "s1:4647, s2",
		"-encrypt", testEncryptKey,
	}, &lockedUi{})
	must.NoError(t, err)
	must.Eq(t, testEncryptKey, cfg.Server.EncryptKey)
	must.Eq(t, "flag-region", cfg.Region)
	must.Eq(t, "dc9", cfg.Datacenter)
	must.Eq(t, "n1", cfg.NodeName)
	must.Eq(t, "/from/file", cfg.DataDir)
	must.Eq(t, []string{"b", "c"}, cfg.Server.RetryJoin)
	must.Eq(t, 0, cfg.Ports.HTTP)
	must.Eq(t, config.DefaultRPCPort, cfg.Ports.RPC)
	must.True(t, cfg.Client.Enabled)
	must.Eq(t, []string{"s1:4647", "s2"}, cfg.Client.Servers)
	must.Eq(t, []string{path}, cfg.Files)
}

func TestCommand_DevRunsUntilShutdown(t *testing.T) {
	ui := &lockedUi{}
	shutdown := make(chan struct{})
	cmd := &Command{Ui: ui, ShutdownCh: shutdown}
	done := make(chan int, 1)
	go func() {
		done <- cmd.Run([]string{"-dev", "-http-port", "0", "-rpc-port", "0", "-node", "dev-node"})
	}()

	waitfor.NoError(t, "the agent to start", func() error {
		if !strings.Contains(ui.Out(), "==> Drover agent started!") {
			return fmt.Errorf("output: %s\nerrors: %s", ui.Out(), ui.Err())
		}
		return nil
	})
	out := ui.Out()
	must.StrContains(t, out, "==> Drover agent configuration:")
	must.StrContains(t, out, "Region: global (DC: dc1)")
	must.StrContains(t, out, "Server: true")
	must.StrContains(t, ui.Err(), "Dev mode is enabled")

	close(shutdown)
	select {
	case code := <-done:
		must.Eq(t, 0, code, must.Sprintf("errors: %s", ui.Err()))
	case <-time.After(20 * time.Second):
		t.Fatal("agent did not stop")
	}
	must.StrContains(t, ui.Out(), "Agent stopped")
}

// A server whose start_join servers do not answer at start gives up and
// the agent exits 1, as Nomad's does.
func TestCommand_StartJoinUnansweredExits(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	dead := l.Addr().String()
	must.NoError(t, l.Close())

	ui := &lockedUi{}
	cmd := &Command{Ui: ui, ShutdownCh: make(chan struct{})}
	done := make(chan int, 1)
	go func() {
		done <- cmd.Run([]string{"-server", "-data-dir", t.TempDir(), "-bootstrap-expect", "3",
			"-join", dead, "-http-port", "0", "-rpc-port", "0", "-bind", "127.0.0.1", "-encrypt", testEncryptKey})
	}()
	select {
	case code := <-done:
		must.Eq(t, 1, code, must.Sprintf("output: %s", ui.Out()))
	case <-time.After(30 * time.Second):
		t.Fatal("the agent did not give up")
	}
	must.StrContains(t, ui.Err(), "server_join: none of "+dead+" answered in 1 attempt")
	must.StrContains(t, ui.Out(), "Agent stopped")
}

func TestJoinMaxAttempts(t *testing.T) {
	must.Eq(t, 0, joinMaxAttempts(config.ServerConfig{}))
	must.Eq(t, 1, joinMaxAttempts(config.ServerConfig{StartJoin: []string{"a"}}))
	must.Eq(t, 0, joinMaxAttempts(config.ServerConfig{RetryJoin: []string{"a"}}))
	must.Eq(t, 4, joinMaxAttempts(config.ServerConfig{RetryJoin: []string{"a"}, RetryMaxAttempts: 4}))
	must.Eq(t, 4, joinMaxAttempts(config.ServerConfig{StartJoin: []string{"b"}, RetryJoin: []string{"a"}, RetryMaxAttempts: 4}))
}

// writeFile writes content to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	must.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}
