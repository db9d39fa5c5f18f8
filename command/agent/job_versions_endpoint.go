package agent

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// jobVersionsResponse is the answer to GET /v1/job/:id/versions, in the
// shape of Nomad's JobVersionsResponse. Diffs is null unless ?diffs=true.
type jobVersionsResponse struct {
	Versions []*api.Job
	Diffs    []*api.JobDiff
}

// versionDiffQuery is what a versions query asks to be diffed.
type versionDiffQuery struct {
	// diffs asks for diffs at all.
	diffs bool
	// against, when set (?diff_version=N), is the version every returned
	// version is compared with, instead of its predecessor.
	against *uint64
}

// parseVersionDiffQuery reads ?diffs, ?diff_version and ?diff_tag. As in
// Nomad, diff_version is checked whenever it is given but only used with
// diffs=true. Drover has no version tags, so no diff_tag can name a version.
func parseVersionDiffQuery(r *http.Request) (versionDiffQuery, error) {
	diffs, err := httpserver.ParseBoolParam(r, "diffs")
	if err != nil {
		return versionDiffQuery{}, err
	}
	q := versionDiffQuery{diffs: diffs}
	params := r.URL.Query()
	if tag := params.Get("diff_tag"); tag != "" {
		return versionDiffQuery{}, httpserver.BadRequest("invalid diff_tag %q: Drover has no job version tags; use diff_version", tag)
	}
	if raw := strings.TrimSpace(params.Get("diff_version")); raw != "" {
		v, err := strconv.ParseUint(raw, 10, 64)
		if err != nil {
			return versionDiffQuery{}, httpserver.BadRequest("invalid diff_version %q: must be a job version number (0, 1, ...)", raw)
		}
		q.against = &v
	}
	return q, nil
}

// jobVersions serves GET /v1/job/:id/versions: every stored version of the
// job, newest first, and with ?diffs=true how they differ (see
// versionDiffs).
func (s *HTTPServer) jobVersions(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := httpserver.IDQuery(r, "job ID")
	if err != nil {
		return nil, err
	}
	dq, err := parseVersionDiffQuery(r)
	if err != nil {
		return nil, err
	}
	versions, err := serveRead(s, w, r, opts, func(srv *nomad.Server, ctx context.Context, q nomad.QueryOptions) ([]*structs.Job, nomad.QueryMeta, error) {
		return srv.JobVersions(ctx, id, q)
	})
	if err != nil {
		return nil, err
	}
	if len(versions) == 0 {
		return nil, httpserver.NotFound("job not found")
	}
	resp := &jobVersionsResponse{Versions: convert.List(versions, convert.JobToAPI)}
	if dq.diffs {
		diffs, err := versionDiffs(versions, dq.against)
		if err != nil {
			return nil, err
		}
		resp.Diffs = convert.JobDiffsToAPI(diffs)
	}
	return resp, nil
}

// versionDiffs computes the diffs of versions, newest first, the way Nomad
// does. Without against, Diffs[i] is how versions[i] differs from the
// older versions[i+1]: one diff fewer than versions, none for a job with a
// single version. With against, Diffs[i] is how versions[i] differs from
// that version: one diff per version, the one compared with itself
// unchanged.
func versionDiffs(versions []*structs.Job, against *uint64) ([]*structs.JobDiff, error) {
	var base *structs.Job
	if against != nil {
		base = versionNumbered(versions, *against)
		if base == nil {
			return nil, httpserver.BadRequest("invalid diff_version %d: the job has no version %d", *against, *against)
		}
	}
	var diffs []*structs.JobDiff
	for i, next := range versions {
		old := base
		if old == nil {
			if i == len(versions)-1 {
				break
			}
			old = versions[i+1]
		}
		d, err := old.Diff(next, true)
		if err != nil {
			return nil, fmt.Errorf("diff job version %d with version %d: %w", next.Version, old.Version, err)
		}
		diffs = append(diffs, d)
	}
	return diffs, nil
}

// versionNumbered returns the version numbered v, or nil.
func versionNumbered(versions []*structs.Job, v uint64) *structs.Job {
	for _, job := range versions {
		if job.Version == v {
			return job
		}
	}
	return nil
}
