package command

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/cli"

	"github.com/drover-io/drover/api"
)

// Meta is what every command shares: the UI, stdin and, for the commands
// that talk to an agent, the client flags.
type Meta struct {
	Ui cli.Ui
	// Stdin is where "-" paths read from.
	Stdin io.Reader

	// Set by the client flags; empty means "from the environment".
	address   string
	region    string
	namespace string
	token     string
	tls       tlsFlags
}

// FlagSet returns a flag set for the named command whose errors go to the
// UI, so that a bad flag prints what is wrong and the command exits 1: an
// unknown flag is named with the command, and the flags it has listed.
func (m *Meta) FlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	out := &flagErrorWriter{ui: m.Ui, command: name}
	fs.SetOutput(out)
	fs.Usage = func() { out.usage(fs) }
	return fs
}

// ClientFlagSet is FlagSet with the flags that say which agent to talk to
// and how: -address, -region, -namespace, -token and the TLS flags.
func (m *Meta) ClientFlagSet(name string) *flag.FlagSet {
	fs := m.FlagSet(name)
	m.registerClientFlags(fs)
	return fs
}

func (m *Meta) registerClientFlags(fs *flag.FlagSet) {
	fs.StringVar(&m.address, "address", "", "")
	fs.StringVar(&m.region, "region", "", "")
	fs.StringVar(&m.namespace, "namespace", "", "")
	fs.StringVar(&m.token, "token", "", "")
	m.tls.register(fs)
}

// Client returns a client for the agent the flags name; what the flags leave
// out comes from the environment (DROVER_ADDR, then NOMAD_ADDR, ...), and
// the address defaults to http://127.0.0.1:4646.
func (m *Meta) Client() (*api.Client, error) {
	cfg := api.DefaultConfig()
	if m.address != "" {
		cfg.Address = m.address
	}
	if m.region != "" {
		cfg.Region = m.region
	}
	if m.namespace != "" {
		cfg.Namespace = m.namespace
	}
	if m.token != "" {
		cfg.Token = m.token
	}
	m.tls.applyTo(cfg)
	return api.NewClient(cfg)
}

// clientOptionsHelp documents the client flags; every command that talks
// to an agent appends it to its help.
const clientOptionsHelp = `
General Options:

  -address=<addr>
    The address of the Drover agent's HTTP API. Defaults to $DROVER_ADDR,
    else $NOMAD_ADDR, else http://127.0.0.1:4646.

  -region=<region>
    The region to send requests to. Defaults to $DROVER_REGION, else
    $NOMAD_REGION, else the agent's own region.

  -namespace=<namespace>
    The namespace to act in. Defaults to $DROVER_NAMESPACE, else
    $NOMAD_NAMESPACE, else "default".

  -token=<secret>
    The ACL token sent as X-Nomad-Token. Defaults to $DROVER_TOKEN, else
    $NOMAD_TOKEN.

  -ca-cert=<path>
    A PEM file of the CA certificates that verify the agent's HTTPS
    certificate. Defaults to $DROVER_CACERT, else $NOMAD_CACERT.

  -ca-path=<path>
    A directory of such PEM files; -ca-cert wins when both are given.
    Defaults to $DROVER_CAPATH, else $NOMAD_CAPATH.

  -client-cert=<path>
    The certificate to present to an agent that verifies HTTPS clients
    (tls.verify_https_client). Needs -client-key. Defaults to
    $DROVER_CLIENT_CERT, else $NOMAD_CLIENT_CERT.

  -client-key=<path>
    The key of -client-cert. Defaults to $DROVER_CLIENT_KEY, else
    $NOMAD_CLIENT_KEY.

  -tls-server-name=<name>
    The name the agent's certificate must carry when it is not the host
    of -address, such as server.global.nomad. Defaults to
    $DROVER_TLS_SERVER_NAME, else $NOMAD_TLS_SERVER_NAME.

  -tls-skip-verify
    Do not verify the agent's certificate. Insecure: for tests only.
    Defaults to $DROVER_SKIP_VERIFY, else $NOMAD_SKIP_VERIFY.
`

// flagErrorWriter sends what the flag package prints about a bad flag to
// the UI's error stream, naming the command an unknown flag is not one of.
type flagErrorWriter struct {
	ui      cli.Ui
	command string
	// unknown is set once the flag package reported an unknown flag.
	unknown bool
}

var _ io.Writer = (*flagErrorWriter)(nil)

// undefinedFlag begins the flag package's message for an unknown flag.
const undefinedFlag = "flag provided but not defined: "

func (w *flagErrorWriter) Write(p []byte) (int, error) {
	s := strings.TrimRight(string(p), "\n")
	if name, ok := strings.CutPrefix(s, undefinedFlag); ok {
		w.unknown = true
		s = fmt.Sprintf("%s is not a flag of %q", name, "drover "+w.command)
	}
	if s != "" {
		w.ui.Error(s)
	}
	return len(p), nil
}

// usage follows the flag package's message: after an unknown flag, the
// flags the command has, its own apart from the general ones.
func (w *flagErrorWriter) usage(fs *flag.FlagSet) {
	if !w.unknown {
		w.ui.Error(fmt.Sprintf("Run 'drover %s -h' for its usage.", w.command))
		return
	}
	general := generalFlagNames()
	var own, shared []string
	fs.VisitAll(func(f *flag.Flag) {
		if general[f.Name] {
			shared = append(shared, "-"+f.Name)
		} else {
			own = append(own, "-"+f.Name)
		}
	})
	switch {
	case len(own) > 0:
		w.ui.Error(fmt.Sprintf("Its flags: %s", strings.Join(own, ", ")))
	case len(shared) == 0:
		w.ui.Error(fmt.Sprintf("It takes no flags. Run 'drover %s -h' for its usage.", w.command))
		return
	}
	if len(shared) > 0 {
		w.ui.Error(fmt.Sprintf("General options: %s", strings.Join(shared, ", ")))
	}
	w.ui.Error(fmt.Sprintf("Run 'drover %s -h' for what each one does.", w.command))
}

// generalFlagNames are the names of the flags ClientFlagSet adds.
func generalFlagNames() map[string]bool {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	names := map[string]bool{}
	(&Meta{}).registerClientFlags(fs)
	fs.VisitAll(func(f *flag.Flag) { names[f.Name] = true })
	return names
}

// apiClient is Client for a command's Run: on failure it reports the
// error and answers false, and Run returns exitError.
func (m *Meta) apiClient() (*api.Client, bool) {
	client, err := m.Client()
	if err != nil {
		m.Ui.Error(fmt.Sprintf("Error initializing client: %v", err))
		return nil, false
	}
	return client, true
}
