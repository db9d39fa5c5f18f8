package agent

import (
	"net/http"
	"strconv"

	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// varPathParam is the variable path of /v1/var/:path, which may hold
// slashes.
func varPathParam(r *http.Request) (string, error) {
	path := r.PathValue("path")
	if err := httpserver.CheckID("variable path", path); err != nil {
		return "", err
	}
	if err := structs.ValidateVariablePath(path); err != nil {
		return "", httpserver.BadRequest("%s", err)
	}
	return path, nil
}

// varWriteNamespace is the namespace of a variable write: ?namespace when
// set, which overrides the body's, else the body's, else the default.
func varWriteNamespace(r *http.Request, body string) (string, error) {
	ns := r.URL.Query().Get("namespace")
	if ns == "" {
		ns = body
	}
	if ns == "" {
		ns = structs.DefaultNamespace
	}
	if ns == nomad.AllNamespaces {
		return "", httpserver.BadRequest("namespace %q selects every namespace; a variable write needs one namespace", ns)
	}
	return ns, httpserver.CheckID("namespace", ns)
}

// parseCAS reads ?cas, the ModifyIndex a check-and-set write expects;
// nil when absent.
func parseCAS(r *http.Request) (*uint64, error) {
	q := r.URL.Query()
	if !q.Has("cas") {
		return nil, nil
	}
	index, err := strconv.ParseUint(q.Get("cas"), 10, 64)
	if err != nil {
		return nil, httpserver.BadRequest("invalid cas %q: must be a non-negative integer (the variable's ModifyIndex, 0 for none)", q.Get("cas"))
	}
	return &index, nil
}

// writeVarConflict answers a write its check-and-set index or a lock
// refused: 409, with the variable as it is.
func (s *HTTPServer) writeVarConflict(w http.ResponseWriter, r *http.Request, resp *nomad.VariablesApplyResponse) {
	httpserver.SetIndex(w, resp.Index)
	s.WriteJSONStatus(w, r, http.StatusConflict, convertVariable(resp.Conflict))
}
