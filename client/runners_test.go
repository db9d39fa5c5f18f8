package client

import (
	"runtime"
	"testing"

	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// A running allocation of one task costs the client two goroutines (the
// alloc runner's and the task runner's): nothing else parks one per
// allocation, such as a wait for the runner to finish.
func TestClient_RunningAllocCostsTwoGoroutines(t *testing.T) {
	const allocs = 20
	srv := newFakeServer()
	c := testClient(t, srv, mock.New(nil))
	<-c.Registered()
	before := runtime.NumGoroutine()

	ids := make([]string, allocs)
	for i := range ids {
		a := mockAlloc(c.NodeID(), map[string]any{"run_for": "1h"})
		srv.place(a)
		ids[i] = a.ID
	}
	waitfor.True(t, "allocs running on the server", func() bool {
		for _, id := range ids {
			if serverStatus(srv, id) != structs.AllocClientStatusRunning {
				return false
			}
		}
		return true
	})
	// A few goroutines may come and go (a pull, a batch of updates).
	const slack = 5
	waitfor.True(t, "at most two goroutines per allocation", func() bool {
		return runtime.NumGoroutine()-before <= 2*allocs+slack
	})
}
