package nomad

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/internal/fixture"
	"github.com/drover-io/drover/nomad/maxrunstats"
	"github.com/drover-io/drover/structs"
)

// TestServer_MaxRunStatsFromClientReports: a client's report of a timeout
// reaches the server's counter through the FSM.
func TestServer_MaxRunStatsFromClientReports(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "dev"))
	waitForLeader(t, s)
	m, sink := fixture.StatsSink(t)
	s.maxRunStats.SetSink(m)
	ctx := testCtx(t)
	alloc := maxRunAllocOnServer(t, s, structs.JobTypeBatch, new(time.Hour), time.Now())
	_, err := s.UpdateAllocsFromClient(ctx, []*structs.Allocation{{
		ID: alloc.ID, ClientStatus: structs.AllocClientStatusComplete, ClientDescription: structs.AllocTimeoutReasonMaxRunDuration,
	}})
	must.NoError(t, err)
	total, _ := fixture.CounterTotal(sink, maxrunstats.MetricExceeded, map[string]string{"namespace": "default", "job": "bounded", "task_group": "group"})
	must.Eq(t, 1.0, total)
}
