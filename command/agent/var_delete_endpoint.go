package agent

import (
	"net/http"

	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// varDelete serves DELETE /v1/var/:path[?cas=<ModifyIndex>]: 204 once the
// variable is gone (also when there was none), 409 with the variable as
// it is when the check-and-set index is not its own or it is locked. The
// server checks variables destroy on the path.
func (s *HTTPServer) varDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	path, err := varPathParam(r)
	if err != nil {
		return nil, err
	}
	ns, err := varWriteNamespace(r, "")
	if err != nil {
		return nil, err
	}
	cas, err := parseCAS(r)
	if err != nil {
		return nil, err
	}
	v := &structs.VariableDecrypted{VariableMetadata: structs.VariableMetadata{Namespace: ns, Path: path}}
	resp, err := srv.ApplyVariable(r.Context(), &nomad.VariablesApplyRequest{Op: structs.VarOpDelete, Var: v, CheckIndex: cas})
	if err != nil {
		return nil, err
	}
	if resp.Conflict != nil {
		s.writeVarConflict(w, r, resp)
		return nil, nil
	}
	httpserver.SetIndex(w, resp.Index)
	w.WriteHeader(http.StatusNoContent)
	return nil, nil
}
