package command

import (
	"testing"
	"time"

	"github.com/hashicorp/cli"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

func newNodeDrain(m Meta) cli.Command { return &NodeDrainCommand{Meta: m} }

func TestNodeDrain_EnableDetachedThenDisable(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "first", structs.NodeSchedulingEligible)

	code, out, errOut := runOneCommand(t, newNodeDrain, "", "-address", addr, "-enable", "-yes", "-detach", "-deadline", "30m", testNodeID[:8])
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.Eq(t, `Node "`+testNodeID+`" drain strategy set`+"\n", out)
	node := storedNode(t, a, testNodeID)
	must.Eq(t, structs.NodeSchedulingIneligible, node.SchedulingEligibility)
	if node.DrainStrategy != nil { // an empty node may have finished already
		must.Eq(t, 30*time.Minute, node.DrainStrategy.Deadline)
	}

	code, out, errOut = runOneCommand(t, newNodeDrain, "", "-address", addr, "-disable", testNodeID)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "drain strategy unset")
	node = storedNode(t, a, testNodeID)
	must.False(t, node.Drain)
	must.Eq(t, structs.NodeSchedulingEligible, node.SchedulingEligibility)
}

func TestNodeDrain_MonitorsMigrationToCompletion(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "first", structs.NodeSchedulingEligible)
	job := &structs.Job{
		ID:          "web",
		Type:        structs.JobTypeService,
		Datacenters: []string{"dc1"},
		TaskGroups: []*structs.TaskGroup{{
			Name:  "web",
			Count: 1,
			Tasks: []*structs.Task{{Name: "web", Driver: "raw_exec", Config: map[string]any{"command": "/bin/sleep", "args": []any{"600"}}}},
		}},
	}
	job.Canonicalize()
	_, err := a.Server().RegisterJob(t.Context(), &nomad.JobRegisterRequest{Job: job})
	must.NoError(t, err)
	var placed *structs.Allocation
	waitfor.True(t, "the service placed", func() bool {
		allocs, err := a.Server().State().AllocsByJob(nil, structs.DefaultNamespace, "web")
		must.NoError(t, err)
		if len(allocs) == 1 {
			placed = allocs[0]
		}
		return placed != nil
	}, wait.Timeout(cliTimeout))
	registerTestNode(t, a, testNodeID2, "second", structs.NodeSchedulingEligible)

	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runOneCommand(t, newNodeDrain, "", "-address", addr, "-enable", "-yes", testNodeID)
		done <- result{code, out, errOut}
	}()
	select {
	case r := <-done:
		must.Eq(t, 0, r.code, must.Sprint(r.errOut))
		must.StrContains(t, r.out, `Node "`+testNodeID+`" drain strategy set`)
		must.StrContains(t, r.out, `Alloc "`+placed.ID+`" marked for migration`)
		must.StrContains(t, r.out, `Alloc "`+placed.ID+`" has stopped`)
		must.StrContains(t, r.out, `Node "`+testNodeID+`" drain complete`)
	case <-time.After(cliTimeout):
		t.Fatal("node drain did not finish")
	}
	allocs, err := a.Server().State().AllocsByNode(nil, testNodeID2)
	must.NoError(t, err)
	must.Len(t, 1, allocs, must.Sprint("the service moved to the other node"))
}

func TestNodeDrain_BadInputAndConfirmation(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "first", structs.NodeSchedulingEligible)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"neither flag", []string{testNodeID}, "Exactly one of -enable and -disable"},
		{"deadline with disable", []string{"-disable", "-deadline", "1m", testNodeID}, "only go with -enable"},
		{"keep-ineligible with enable", []string{"-enable", "-keep-ineligible", testNodeID}, "only goes with -disable"},
		{"two deadlines", []string{"-enable", "-force", "-no-deadline", testNodeID}, "Only one of"},
		{"negative deadline", []string{"-enable", "-deadline", "-1m", testNodeID}, "must be positive"},
		{"bad duration", []string{"-enable", "-deadline", "soon", testNodeID}, "invalid value"},
		{"no node", []string{"-enable"}, "one argument"},
		{"unknown node", []string{"-enable", "-yes", "0000"}, `No node(s) with prefix or id "0000" found`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runOneCommand(t, newNodeDrain, "", append([]string{"-address", addr}, c.args...)...)
			must.Eq(t, 1, code)
			must.StrContains(t, errOut, c.want)
		})
	}

	code, _, errOut := runOneCommand(t, newNodeDrain, "", "-address", addr, "-enable", testNodeID)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "use -yes")
	code, out, _ := runOneCommand(t, newNodeDrain, "n\n", "-address", addr, "-enable", testNodeID)
	must.Eq(t, 0, code)
	must.StrContains(t, out, `Are you sure you want to enable drain mode for node "`+testNodeID+`"? [y/N]`)
	must.StrContains(t, out, "Canceling drain")
	must.False(t, storedNode(t, a, testNodeID).Drain)
	must.Eq(t, structs.NodeSchedulingEligible, storedNode(t, a, testNodeID).SchedulingEligibility)
}
