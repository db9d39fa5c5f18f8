package agent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/internal/waitfor"
)

// officialBatchJob is a batch job of one raw_exec task, as Nomad's
// official client builds it.
func officialBatchJob(id string) *nomadapi.Job {
	job := nomadapi.NewBatchJob(id, id, "global", 50)
	job.Datacenters = []string{"dc1"}
	job.AddTaskGroup(nomadapi.NewTaskGroup("g", 1).AddTask(nomadapi.NewTask("t", "raw_exec").SetConfig("command", "/bin/true")))
	return job
}

// TestFollower_showsYouYourOwnWrites holds read-your-writes through a
// follower: every job registered there through the official client has
// its evaluation found at once on the same follower, at or past the
// index the write answered with, as `job run`'s monitor reads it.
func TestFollower_showsYouYourOwnWrites(t *testing.T) {
	c := startServerCluster(t, 3)
	f := c.followers()[0]
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + f.HTTPAddr()})
	must.NoError(t, err)

	for i := range 25 {
		id := fmt.Sprintf("ryw-%02d", i)
		reg, wm, err := client.Jobs().Register(officialBatchJob(id), nil)
		must.NoError(t, err)
		must.Positive(t, wm.LastIndex)

		eval, qm, err := client.Evaluations().Info(reg.EvalID, nil)
		must.NoError(t, err, must.Sprintf("write %d: evaluation of job %q on the follower", i, id))
		must.Eq(t, reg.EvalID, eval.ID)
		must.Eq(t, id, eval.JobID)
		must.True(t, qm.KnownLeader)
		must.GreaterEq(t, reg.EvalCreateIndex, qm.LastIndex)

		// The raw answer, as any client reads it.
		resp := do(t, f, http.MethodGet, "/v1/job/"+id, nil)
		must.Eq(t, http.StatusOK, resp.code, must.Sprintf("write %d: GET /v1/job/%s on the follower: %s", i, id, resp))
		must.Eq(t, "true", resp.header.Get(httpserver.HeaderKnownLeader))
		index, err := strconv.ParseUint(resp.header.Get(httpserver.HeaderIndex), 10, 64)
		must.NoError(t, err)
		must.GreaterEq(t, wm.LastIndex, index)
	}

	// ?stale keeps the fast path: answered from the follower's own state,
	// which is never ahead of what was written.
	resp := do(t, f, http.MethodGet, "/v1/jobs?stale", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var stale []*api.JobListStub
	must.NoError(t, json.Unmarshal(resp.body, &stale))
	must.LessEq(t, 25, len(stale))
}

// TestFollower_restartedDoesNotAnswerAsIfCaughtUp restarts a follower that
// missed writes and reads it at once, again and again, until it has caught
// up: a stale list that misses jobs says that no leader is known, and a
// list that is not stale either fails or holds every job, never fewer.
func TestFollower_restartedDoesNotAnswerAsIfCaughtUp(t *testing.T) {
	c := startServerCluster(t, 3, unscheduled)
	leader := c.leader()
	down := -1
	for i, a := range c.agents {
		if a != leader {
			down = i
			break
		}
	}
	must.NoError(t, c.agents[down].Shutdown())
	const jobs = 40
	for i := range jobs {
		registerJob(t, leader, batchJobJSON(fmt.Sprintf("missed-%02d", i)))
	}

	restarted := c.restart(down)
	behindStale, refused := 0, 0
	waitfor.True(t, "the restarted follower to answer every job", func() bool {
		resp := do(t, restarted, http.MethodGet, "/v1/jobs?stale", nil)
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		var list []*api.JobListStub
		must.NoError(t, json.Unmarshal(resp.body, &list))
		if len(list) < jobs {
			behindStale++
			must.Eq(t, "false", resp.header.Get(httpserver.HeaderKnownLeader),
				must.Sprintf("a stale list of %d of %d jobs claims a known leader", len(list), jobs))
		}

		resp = do(t, restarted, http.MethodGet, "/v1/jobs", nil)
		if resp.code != http.StatusOK {
			refused++
			must.Eq(t, http.StatusInternalServerError, resp.code, must.Sprint(resp))
			return false
		}
		list = nil
		must.NoError(t, json.Unmarshal(resp.body, &list))
		must.Len(t, jobs, list, must.Sprintf("a list that is not stale holds %d of %d jobs", len(list), jobs))
		must.Eq(t, "true", resp.header.Get(httpserver.HeaderKnownLeader))
		return true
	})
	t.Logf("while catching up: %d stale lists behind, %d lists refused", behindStale, refused)
}
