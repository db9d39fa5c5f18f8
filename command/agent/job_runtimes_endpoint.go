package agent

import (
	"context"
	"net/http"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// jobRunTimes serves GET /v1/job/:id/runtimes, Drover's: the run times of
// the job's finished allocations per version and group, against their
// budget (structs.RunTimes).
func (s *HTTPServer) jobRunTimes(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := httpserver.IDQuery(r, "job ID")
	if err != nil {
		return nil, err
	}
	rt, err := serveRead(s, w, r, opts, func(srv *nomad.Server, ctx context.Context, q nomad.QueryOptions) (*structs.JobRunTimes, nomad.QueryMeta, error) {
		return srv.JobRunTimes(ctx, id, q)
	})
	if err != nil {
		return nil, err
	}
	if rt == nil {
		return nil, httpserver.NotFound("job not found")
	}
	return runTimesToAPI(rt), nil
}

func runTimesToAPI(rt *structs.JobRunTimes) *api.JobRunTimes {
	out := &api.JobRunTimes{Namespace: rt.Namespace, JobID: rt.JobID, Groups: make([]*api.RunTimeStats, len(rt.Groups))}
	for i, g := range rt.Groups {
		out.Groups[i] = &api.RunTimeStats{
			Version: g.Version, TaskGroup: g.TaskGroup, Budget: g.Budget, Count: g.Count,
			P50: g.P50, P95: g.P95, Max: g.Max, Timeouts: g.Timeouts,
		}
	}
	return out
}
