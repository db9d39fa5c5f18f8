package agent

import (
	"net/http"
	"strings"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// varWrite serves PUT and POST /v1/var/:path: it creates or replaces the
// variable in the body (?cas=<ModifyIndex> for a check-and-set), or,
// with ?lock-acquire, ?lock-renew or ?lock-release, runs that operation
// on its lock. A write refused by its index or by a lock is a 409 whose
// body is the variable as it is. The server checks variables write on
// the path.
func (s *HTTPServer) varWrite(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	path, err := varPathParam(r)
	if err != nil {
		return nil, err
	}
	op, err := varOperation(r)
	if err != nil {
		return nil, err
	}
	var in api.Variable
	if err := httpserver.DecodeBody(r, &in, "variable"); err != nil {
		return nil, err
	}
	if body := strings.Trim(in.Path, " /"); body != "" && body != path {
		return nil, httpserver.BadRequest("variable path %q in the body does not match %q in the URL", in.Path, path)
	}
	if op == structs.VarOpSet && len(in.Items) == 0 {
		return nil, httpserver.BadRequest("%s", structs.ErrVariableNoItems)
	}
	v, err := convert.VariableFromAPI(&in)
	if err != nil {
		return nil, httpserver.BadRequest("variable %q: %s", path, err)
	}
	v.Path = path
	if v.Namespace, err = varWriteNamespace(r, in.Namespace); err != nil {
		return nil, err
	}
	cas, err := parseCAS(r)
	if err != nil {
		return nil, err
	}
	if cas != nil && op != structs.VarOpSet {
		return nil, httpserver.BadRequest("cas applies to a write of the variable, not to %s", op)
	}
	resp, err := srv.ApplyVariable(r.Context(), &nomad.VariablesApplyRequest{Op: op, Var: v, CheckIndex: cas})
	if err != nil {
		return nil, err
	}
	if resp.Conflict != nil {
		s.writeVarConflict(w, r, resp)
		return nil, nil
	}
	httpserver.SetIndex(w, resp.Index)
	if op == structs.VarOpLockRenew {
		return convert.VariableMetadataToAPI(&resp.Output.VariableMetadata), nil
	}
	return convertVariable(resp.Output), nil
}

// varOperation is the write a PUT asks for: a lock operation named by a
// query parameter of its own, else a set.
func varOperation(r *http.Request) (string, error) {
	q := r.URL.Query()
	op := structs.VarOpSet
	for _, lockOp := range []string{structs.VarOpLockAcquire, structs.VarOpLockRenew, structs.VarOpLockRelease} {
		if !q.Has(lockOp) {
			continue
		}
		if op != structs.VarOpSet {
			return "", httpserver.BadRequest("one lock operation at a time: %s and %s", op, lockOp)
		}
		op = lockOp
	}
	return op, nil
}

// convertVariable is convert.VariableToAPI, typed for a handler's answer.
func convertVariable(v *structs.VariableDecrypted) any {
	if v == nil {
		return nil
	}
	return convert.VariableToAPI(v)
}
