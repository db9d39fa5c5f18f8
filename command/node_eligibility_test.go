package command

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hashicorp/cli"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent"
	"github.com/drover-io/drover/structs"
)

// runOneCommand runs one command with stdin and returns its exit code and
// output, for commands tested on their own.
func runOneCommand(t *testing.T, newCmd func(Meta) cli.Command, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	in := strings.NewReader(stdin)
	ui := &cli.BasicUi{Reader: in, Writer: &out, ErrorWriter: &errOut}
	code = newCmd(Meta{Ui: ui, Stdin: in}).Run(args)
	return code, out.String(), errOut.String()
}

func newNodeEligibility(m Meta) cli.Command { return &NodeEligibilityCommand{Meta: m} }

// storedNode returns a node as the agent's server stores it.
func storedNode(t *testing.T, a *agent.Agent, id string) *structs.Node {
	t.Helper()
	n, err := a.Server().State().NodeByID(nil, id)
	must.NoError(t, err)
	must.NotNil(t, n)
	return n
}

func TestNodeEligibility_Toggles(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "first", structs.NodeSchedulingEligible)

	code, out, errOut := runOneCommand(t, newNodeEligibility, "", "-address", addr, "-disable", testNodeID[:6])
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.Eq(t, `Node "`+testNodeID+`" scheduling eligibility set: ineligible for scheduling`+"\n", out)
	must.Eq(t, structs.NodeSchedulingIneligible, storedNode(t, a, testNodeID).SchedulingEligibility)

	code, out, errOut = runOneCommand(t, newNodeEligibility, "", "-address", addr, "-enable", testNodeID)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "eligible for scheduling")
	must.Eq(t, structs.NodeSchedulingEligible, storedNode(t, a, testNodeID).SchedulingEligibility)
}

func TestNodeEligibility_BadInput(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "first", structs.NodeSchedulingEligible)
	registerTestNode(t, a, testNodeID2, "second", structs.NodeSchedulingEligible)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"neither flag", []string{testNodeID}, "Exactly one of -enable and -disable"},
		{"both flags", []string{"-enable", "-disable", testNodeID}, "Exactly one of -enable and -disable"},
		{"no node", []string{"-enable"}, "one argument"},
		{"unknown node", []string{"-enable", "0000"}, `No node(s) with prefix or id "0000" found`},
		{"ambiguous prefix", []string{"-enable", "f5a9"}, "Prefix matched multiple nodes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runOneCommand(t, newNodeEligibility, "", append([]string{"-address", addr}, c.args...)...)
			must.Eq(t, 1, code)
			must.StrContains(t, errOut, c.want)
		})
	}

}
