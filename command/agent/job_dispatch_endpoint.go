package agent

import (
	"net/http"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
)

// jobDispatch serves PUT and POST /v1/job/:id/dispatch: the body is
// Nomad's JobDispatchRequest (the payload base64 in JSON, as Go encodes
// []byte), the query parameter idempotency_token makes the dispatch
// idempotent, and the answer is Nomad's JobDispatchResponse. The
// request's MaxRunDuration (nanoseconds) is Drover's. The server checks
// the caller (dispatch-job in the namespace), then the job and the
// inputs.
func (s *HTTPServer) jobDispatch(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, ns, id, err := s.jobWrite(r)
	if err != nil {
		return nil, err
	}
	body, err := httpserver.ReadBody(r, `{"Payload": "<base64>", "Meta": {"key": "value"}}`)
	if err != nil {
		return nil, err
	}
	var req api.JobDispatchRequest
	if len(body) > 0 {
		if err := httpserver.UnmarshalBody(body, &req, "dispatch request"); err != nil {
			return nil, err
		}
	}
	if req.JobID != "" && req.JobID != id {
		return nil, httpserver.BadRequest("dispatch request: JobID %q does not match the job %q of the path", req.JobID, id)
	}
	resp, err := srv.DispatchJob(r.Context(), &nomad.JobDispatchRequest{
		Namespace:        ns,
		JobID:            id,
		Payload:          req.Payload,
		Meta:             req.Meta,
		IdempotencyToken: r.URL.Query().Get("idempotency_token"),
		IDPrefixTemplate: req.IdPrefixTemplate,
		Priority:         req.Priority,
		MaxRunDuration:   req.MaxRunDuration,
	})
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return &api.JobDispatchResponse{
		DispatchedJobID: resp.DispatchedJobID,
		EvalID:          resp.EvalID,
		EvalCreateIndex: resp.EvalCreateIndex,
		JobCreateIndex:  resp.JobCreateIndex,
		Index:           resp.Index,
	}, nil
}
