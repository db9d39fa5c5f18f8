package command

import (
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// A mistyped command names the closest commands and exits 1; a Nomad
// command Drover lacks says so, with the page that lists what it has.
func TestUnknownCommand(t *testing.T) {
	mustFailWith(t, []cliFailure{
		{"statu", `unknown command "statu", did you mean "status"?
Run 'drover -h' for the list of commands.
`},
		{"jbo run x.hcl", `unknown command "jbo", did you mean "job"?
Run 'drover -h' for the list of commands.
`},
		{"xyzzy", `unknown command "xyzzy"
Run 'drover -h' for the list of commands.
`},
		{"job stauts -verbose example", `unknown command "job stauts", did you mean "job status"?
The subcommands of "drover job" are: allocs, dispatch, history, init, inspect, periodic, plan, run, status, stop, validate.
Run 'drover job -h' for what they do.
`},
		{"node s", `unknown command "node s", did you mean "node status"?
The subcommands of "drover node" are: drain, eligibility, status.
Run 'drover node -h' for what they do.
`},
		{"alloc fs 0d5ee6ee /", `"alloc fs" is a Nomad command that Drover does not support (read an allocation's files (the HTTP API serves them)); see website/content/docs/differences.md
`},
		{"acl role list", `"acl role" is a Nomad command that Drover does not support (ACL roles); see website/content/docs/differences.md
`},
		{"help jb", `unknown command "jb", did you mean "job"?
Run 'drover -h' for the list of commands.
`},
		{"help alloc fs", `"alloc fs" is a Nomad command that Drover does not support (read an allocation's files (the HTTP API serves them)); see website/content/docs/differences.md
`},
	})
}

// `drover help <command>` is `drover <command> -h`, and `drover help`
// alone lists the commands.
func TestHelpCommand(t *testing.T) {
	for _, name := range []string{"job", "job run", "alloc", "operator snapshot save", "status"} {
		code, out, errOut := runCLI(t, "", append([]string{"help"}, strings.Fields(name)...)...)
		must.Eq(t, 0, code, must.Sprint(errOut))
		_, want, _ := runCLI(t, "", append(strings.Fields(name), "-h")...)
		must.StrHasPrefix(t, "Usage: drover "+name, out+errOut)
		must.Eq(t, want, out)
	}
	code, out, errOut := runCLI(t, "", "help")
	must.Eq(t, 0, code)
	must.StrContains(t, out+errOut, "Available commands are:\n")
	must.StrContains(t, out+errOut, "    status ")
}

// An unknown flag names the command and lists the flags it has, its own
// apart from the general ones; a bad value points at the usage.
func TestUnknownFlag(t *testing.T) {
	mustFailWith(t, []cliFailure{
		{"job status -json example", `-json is not a flag of "drover job status"
Its flags: -all-allocs, -evals, -short, -verbose
General options: -address, -ca-cert, -ca-path, -client-cert, -client-key, -namespace, -region, -tls-server-name, -tls-skip-verify, -token
Run 'drover job status -h' for what each one does.
`},
		{"version -x", `-x is not a flag of "drover version"
It takes no flags. Run 'drover version -h' for its usage.
`},
		{"job run -wait-timeout soon x.hcl", `invalid value "soon" for flag -wait-timeout: parse error
Run 'drover job run -h' for its usage.
`},
	})
}

// cliFailure is a command line and the whole of what it must print to
// stderr, exiting 1 with nothing on stdout.
type cliFailure struct {
	args string
	want string
}

func mustFailWith(t *testing.T, cases []cliFailure) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.args, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", strings.Fields(tc.args)...)
			must.Eq(t, exitError, code)
			must.Eq(t, "", out)
			must.Eq(t, tc.want, errOut)
		})
	}
}

func TestClosestWords(t *testing.T) {
	words := []string{"status", "stop", "run", "plan", "periodic"}
	must.Eq(t, []string{"status"}, closestWords("statsu", words))
	must.Eq(t, []string{"status", "stop"}, closestWords("st", words))
	must.Eq(t, []string{"run"}, closestWords("rn", words))
	must.SliceEmpty(t, closestWords("xyzzy", words))
}
