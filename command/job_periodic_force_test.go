package command

import (
	"regexp"
	"testing"

	"github.com/hashicorp/cli"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func newJobPeriodicForce(m Meta) cli.Command { return &JobPeriodicForceCommand{Meta: m} }

func TestJobPeriodicForce_LaunchesAChild(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "first", structs.NodeSchedulingEligible)
	code, _, errOut := runCLI(t, "", "job", "run", "-address", addr, "-detach",
		writeJob(t, "nightly", `periodic {
    crons = ["0 3 * * *"]
  }`))
	must.Eq(t, 0, code, must.Sprint(errOut))

	code, out, errOut := runOneCommand(t, newJobPeriodicForce, "", "-address", addr, "-detach", "nightly")
	must.Eq(t, 0, code, must.Sprint(errOut))
	m := regexp.MustCompile(`^Force periodic successful\nEvaluation ID: ([0-9a-f-]{36})\n$`).FindStringSubmatch(out)
	must.Len(t, 2, m, must.Sprintf("output %q", out))
	eval, err := a.Server().State().EvalByID(nil, m[1])
	must.NoError(t, err)
	must.StrHasPrefix(t, "nightly/periodic-", eval.JobID)

	// Followed, the child's evaluation places it on the node.
	code, out, errOut = runOneCommand(t, newJobPeriodicForce, "", "-address", addr, "nigh")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "Monitoring evaluation")
	must.StrContains(t, out, `finished with status "complete"`)
}

func TestJobPeriodicForce_BadInput(t *testing.T) {
	_, addr := testAgent(t)
	code, _, errOut := runCLI(t, "", "job", "run", "-address", addr, "-detach", writeJob(t, "plain", ""))
	must.Eq(t, 0, code, must.Sprint(errOut))
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no job", nil, "one argument"},
		{"unknown job", []string{"nope"}, `No periodic job(s) with prefix or id "nope" found`},
		{"prefix of no periodic job", []string{"pla"}, `No periodic job(s) with prefix or id "pla" found`},
		{"not periodic", []string{"plain"}, `Job "plain" is not periodic`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runOneCommand(t, newJobPeriodicForce, "", append([]string{"-address", addr}, c.args...)...)
			must.Eq(t, 1, code)
			must.StrContains(t, errOut, c.want)
		})
	}
}

// The commands this change adds print their usage under the words that
// invoke them, as TestEveryCommandHasUsage checks once they are in the
// command table.
func TestSchedulingCommands_Usage(t *testing.T) {
	cmds := map[string]cli.Command{
		"node drain":         &NodeDrainCommand{},
		"node eligibility":   &NodeEligibilityCommand{},
		"job periodic":       &JobPeriodicCommand{},
		"job periodic force": &JobPeriodicForceCommand{},
	}
	for name, cmd := range cmds {
		must.StrHasPrefix(t, "Usage: drover "+name, cmd.Help())
		must.NotEq(t, "", cmd.Synopsis())
	}
}

// TestJobPeriodicForce_SameSecondSaysNothingWasLaunched: a force within
// the second of the previous one finds that second's child already there
// and says that it launched nothing new; one that launches a child says
// nothing of the kind.
func TestJobPeriodicForce_SameSecondSaysNothingWasLaunched(t *testing.T) {
	a, addr := testAgent(t)
	code, _, errOut := runCLI(t, "", "job", "run", "-address", addr, "-detach",
		writeJob(t, "nightly", `periodic {
    crons = ["0 3 * * *"]
  }`))
	must.Eq(t, 0, code, must.Sprint(errOut))
	evalRE := regexp.MustCompile(`Evaluation ID: ([0-9a-f-]{36})\n$`)
	force := func() (out, child string) {
		code, out, errOut := runOneCommand(t, newJobPeriodicForce, "", "-address", addr, "-detach", "nightly")
		must.Eq(t, 0, code, must.Sprint(errOut))
		m := evalRE.FindStringSubmatch(out)
		must.Len(t, 2, m, must.Sprintf("output %q", out))
		eval, err := a.Server().State().EvalByID(nil, m[1])
		must.NoError(t, err)
		return out, eval.JobID
	}
	seen := map[string]bool{}
	for attempt := 0; ; attempt++ {
		must.Less(t, 10, attempt, must.Sprint("no two forces fell within one second"))
		out, child := force()
		if !seen[child] {
			seen[child] = true
			must.StrHasPrefix(t, "Force periodic successful\n", out)
			continue
		}
		must.StrHasPrefix(t, `No new job was launched: "`+child+`" was already launched within this second (children are named by the second they launch in), so this evaluation re-evaluates it. Force again in a second to launch another.
Force periodic successful
`, out)
		return
	}
}
