package agent

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/hashicorp/cli"
	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/version"
)

// Command is `drover agent`: it loads the configuration, starts an agent and
// runs it until it is told to stop.
type Command struct {
	Ui cli.Ui
	// ShutdownCh, when closed, stops the agent as a signal would. Tests
	// use it; in production the agent stops on SIGINT or SIGTERM.
	ShutdownCh <-chan struct{}
}

// NewCommand returns the agent command for the CLI's command table.
func NewCommand(ui cli.Ui) cli.Command {
	return &Command{Ui: ui}
}

func (c *Command) Synopsis() string { return "Runs a Drover agent" }

func (c *Command) Help() string {
	return strings.TrimSpace(`
Usage: drover agent [options]

  Starts a Drover agent and runs it until it is interrupted. An agent runs
  a server, a client or both. With -dev it runs both, in memory, on the
  loopback address, with the raw_exec driver enabled: a whole cluster on
  this machine, for trying Drover out.

  The first SIGINT or SIGTERM stops the agent gracefully; a second one
  exits at once.

Options:

  -dev
    Run a server and a client in memory on 127.0.0.1 (dev mode).

  -config=<path>
    A configuration file (HCL or JSON, told apart by content) or a
    directory whose *.hcl and *.json files are read in lexical order.
    Repeatable; later files override earlier ones, and flags override
    files.

  -data-dir=<path>
    Where the agent keeps its state. Required unless -dev.

  -bind=<addr>
    The address the agent binds (default 0.0.0.0; 127.0.0.1 with -dev).

  -http-port=<port>
    The HTTP API port (default 4646). 0 picks a free port.

  -rpc-port=<port>
    The server's RPC and raft port (default 4647). 0 picks a free port.

  -log-level=<level>
    TRACE, DEBUG, INFO, WARN or ERROR (default INFO).

  -node=<name>
    This agent's name (default: the host name).

  -region=<region>
    The region (default global).

  -dc=<datacenter>
    The datacenter (default dc1).

  -server
    Run a server.

  -bootstrap-expect=<n>
    How many servers form a new cluster together.

  -join=<addr>
    A server to join at start; the agent exits if none answers. Repeatable.

  -retry-join=<addr>
    A server to join, retried until it works (or until server_join's
    retry_max rounds went unanswered). Repeatable.

  -encrypt=<key>
    The servers' shared cluster key (server.encrypt), from
    'drover operator keygen'. Required for a server that forms or joins
    a cluster with others.

  -client
    Run a client.

  -servers=<addr,...>
    The servers a client registers with, comma-separated.

  -node-class=<class>
    The client's node class.

  -node-pool=<pool>
    The client's node pool (default "default").

  -acl-enabled
    Check the ACL token of every request (acl { enabled = true }).
`)
}

// agentFlags are the command-line settings; each one set overrides the
// configuration files.
type agentFlags struct {
	dev             bool
	configs         stringList
	dataDir         string
	bind            string
	httpPort        int
	rpcPort         int
	logLevel        string
	node            string
	region          string
	dc              string
	server          bool
	bootstrapExpect int
	join            stringList
	retryJoin       stringList
	encrypt         string
	client          bool
	servers         string
	nodeClass       string
	nodePool        string
	aclEnabled      bool
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

func (f *agentFlags) flagSet(ui cli.Ui) *flag.FlagSet {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(&uiWriter{ui: errorUi{ui}})
	fs.Usage = func() {}
	fs.BoolVar(&f.dev, "dev", false, "")
	fs.Var(&f.configs, "config", "")
	fs.StringVar(&f.dataDir, "data-dir", "", "")
	fs.StringVar(&f.bind, "bind", "", "")
	fs.IntVar(&f.httpPort, "http-port", 0, "")
	fs.IntVar(&f.rpcPort, "rpc-port", 0, "")
	fs.StringVar(&f.logLevel, "log-level", "", "")
	fs.StringVar(&f.node, "node", "", "")
	fs.StringVar(&f.region, "region", "", "")
	fs.StringVar(&f.dc, "dc", "", "")
	fs.BoolVar(&f.server, "server", false, "")
	fs.IntVar(&f.bootstrapExpect, "bootstrap-expect", 0, "")
	fs.Var(&f.join, "join", "")
	fs.Var(&f.retryJoin, "retry-join", "")
	fs.StringVar(&f.encrypt, "encrypt", "", "")
	fs.BoolVar(&f.client, "client", false, "")
	fs.StringVar(&f.servers, "servers", "", "")
	fs.StringVar(&f.nodeClass, "node-class", "", "")
	fs.StringVar(&f.nodePool, "node-pool", "", "")
	fs.BoolVar(&f.aclEnabled, "acl-enabled", false, "")
	return fs
}

// errorUi sends Output to Error, for flag parse errors.
type errorUi struct{ cli.Ui }

func (e errorUi) Output(s string) { e.Ui.Error(s) }

// applyTo sets on cfg each flag that was given on the command line.
func (f *agentFlags) applyTo(cfg *config.Config, set map[string]bool) {
	apply := map[string]func(){
		"data-dir":         func() { cfg.DataDir = f.dataDir },
		"bind":             func() { cfg.BindAddr = f.bind },
		"http-port":        func() { cfg.Ports.HTTP = f.httpPort },
		"rpc-port":         func() { cfg.Ports.RPC = f.rpcPort },
		"log-level":        func() { cfg.LogLevel = f.logLevel },
		"node":             func() { cfg.NodeName = f.node },
		"region":           func() { cfg.Region = f.region },
		"dc":               func() { cfg.Datacenter = f.dc },
		"server":           func() { cfg.Server.Enabled = f.server },
		"bootstrap-expect": func() { cfg.Server.BootstrapExpect = f.bootstrapExpect },
		"join":             func() { cfg.Server.StartJoin = slices.Clone(f.join) },
		"retry-join":       func() { cfg.Server.RetryJoin = slices.Clone(f.retryJoin) },
		"encrypt":          func() { cfg.Server.EncryptKey = f.encrypt },
		"client":           func() { cfg.Client.Enabled = f.client },
		"servers":          func() { cfg.Client.Servers = splitList(f.servers) },
		"node-class":       func() { cfg.Client.NodeClass = f.nodeClass },
		"node-pool":        func() { cfg.Client.NodePool = f.nodePool },
		"acl-enabled":      func() { cfg.ACL.Enabled = f.aclEnabled },
	}
	for name, fn := range apply {
		if set[name] {
			fn()
		}
	}
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// loadConfig builds the configuration from the defaults (dev or not), the
// -config files and the flags, and validates it.
func loadConfig(args []string, ui cli.Ui) (*config.Config, error) {
	var f agentFlags
	fs := f.flagSet(ui)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %s (the agent takes only flags)", strings.Join(fs.Args(), " "))
	}
	base := config.DefaultConfig()
	if f.dev {
		base = config.DevConfig()
	}
	cfg, err := config.LoadConfig(base, f.configs...)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	f.applyTo(cfg, set)
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid agent configuration: %w", err)
	}
	return cfg, nil
}

func (c *Command) Run(args []string) int {
	ui := &cli.ConcurrentUi{Ui: c.Ui}
	cfg, err := loadConfig(args, ui)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			ui.Error(fmt.Sprintf("==> %s", oneLineErrors(err)))
		}
		return 1
	}

	logOut := newGatedWriter(&uiWriter{ui: ui})
	logger := hclog.New(&hclog.LoggerOptions{
		Name:   "agent",
		Level:  hclog.LevelFromString(cfg.LogLevel),
		Output: logOut,
	})
	for _, file := range cfg.Files {
		ui.Output(fmt.Sprintf("==> Loaded configuration from %s", file))
	}
	for _, w := range cfg.Warnings {
		logger.Warn(w)
	}
	ui.Output("==> Starting Drover agent...")
	agent, err := NewAgent(cfg, logger)
	if err != nil {
		logOut.Flush()
		ui.Error(fmt.Sprintf("==> Error starting agent: %s", oneLineErrors(err)))
		return 1
	}
	c.printBanner(ui, agent)
	logOut.Flush()
	return c.waitForShutdown(ui, agent)
}

// oneLineErrors formats an error that may join several on separate lines.
func oneLineErrors(err error) string {
	return strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "\n    ")
}

// printBanner prints the agent's configuration at startup, as Nomad does.
func (c *Command) printBanner(ui cli.Ui, a *Agent) {
	cfg := a.config
	nodeID := ""
	rpcBind, rpcAdvertise := "", ""
	if srv := a.server; srv != nil {
		nodeID = srv.NodeID()
		rpcBind = srv.RPCAddr().String()
		rpcAdvertise = srv.RPCAdvertise()
	}
	if cl := a.client; cl != nil {
		nodeID = cl.NodeID()
	}
	if cfg.DevMode {
		ui.Warn("==> WARNING: Dev mode is enabled! In this mode the agent keeps everything in memory: its state is lost when it stops.")
	}
	lines := [][2]string{
		{"Advertise Addrs", fmt.Sprintf("HTTP: %s; RPC: %s", a.httpAdvertise(), rpcAdvertise)},
		{"Bind Addrs", fmt.Sprintf("HTTP: %s; RPC: %s", a.HTTPAddr(), rpcBind)},
		{"Client", fmt.Sprint(cfg.Client.Enabled)},
		{"Log Level", cfg.LogLevel},
		{"Node Id", nodeID},
		{"Region", fmt.Sprintf("%s (DC: %s)", cfg.Region, cfg.Datacenter)},
		{"Server", fmt.Sprint(cfg.Server.Enabled)},
		{"Version", strings.TrimPrefix(version.String(), "Drover v")},
	}
	ui.Output("==> Drover agent configuration:\n")
	for _, l := range lines {
		ui.Info(fmt.Sprintf("%22s: %s", l[0], l[1]))
	}
	ui.Output("")
	ui.Output("==> Drover agent started! Log data will stream in below:\n")
}

// waitForShutdown runs until SIGINT, SIGTERM or ShutdownCh, then shuts the
// agent down gracefully; a second signal while it does exits at once.
func (c *Command) waitForShutdown(ui cli.Ui, a *Agent) int {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)

	failed := c.awaitStop(ui, signals, a.Failed())

	done := make(chan error, 1)
	go func() { done <- a.Shutdown() }()
	for {
		select {
		case err := <-done:
			if err != nil {
				ui.Error(fmt.Sprintf("==> Error shutting down: %s", oneLineErrors(err)))
				return 1
			}
			ui.Output("==> Agent stopped")
			if failed {
				return 1
			}
			return 0
		case sig := <-signals:
			if sig == syscall.SIGHUP {
				continue
			}
			ui.Error(fmt.Sprintf("==> Caught second signal %v: exiting at once", sig))
			return 1
		}
	}
}

// awaitStop returns once the agent is told to stop, or cannot go on; it
// reports true in the second case.
func (c *Command) awaitStop(ui cli.Ui, signals <-chan os.Signal, agentFailed <-chan error) bool {
	for {
		select {
		case err := <-agentFailed:
			ui.Error(fmt.Sprintf("==> %s; shutting down", err))
			return true
		case sig := <-signals:
			if sig == syscall.SIGHUP {
				ui.Warn("==> Caught SIGHUP: reloading the configuration is not supported; restart the agent to apply changes")
				continue
			}
			ui.Output(fmt.Sprintf("==> Caught signal: %v; shutting down gracefully (send it again to exit at once)", sig))
			return false
		case <-c.ShutdownCh:
			ui.Output("==> Shutdown requested; shutting down gracefully")
			return false
		}
	}
}
