package agent

import (
	"context"
	"net/http"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// nodeUpdateResponse is the answer to an eligibility or drain change, as
// Nomad's JSON has it.
type nodeUpdateResponse struct {
	EvalIDs         []string
	EvalCreateIndex uint64
	NodeModifyIndex uint64
	Index           uint64
}

// nodeEligibilityRequest is the body of POST /v1/node/:id/eligibility.
type nodeEligibilityRequest struct {
	NodeID      string
	Eligibility string
}

// nodeDrainRequest is the body of POST /v1/node/:id/drain. A null DrainSpec
// ends a drain.
type nodeDrainRequest struct {
	NodeID       string
	DrainSpec    *api.DrainSpec
	MarkEligible bool
}

// nodesList serves GET /v1/nodes: stubs of the nodes whose ID starts with
// ?prefix; ?resources=true and ?os=true add those parts, as in Nomad.
func (s *HTTPServer) nodesList(w http.ResponseWriter, r *http.Request) (any, error) {
	opts, err := httpserver.ParseQueryOptions(r)
	if err != nil {
		return nil, err
	}
	var fields convert.NodeStubFields
	if fields.Resources, err = httpserver.ParseBoolParam(r, "resources"); err != nil {
		return nil, err
	}
	if fields.OS, err = httpserver.ParseBoolParam(r, "os"); err != nil {
		return nil, err
	}
	nodes, err := serveRead(s, w, r, opts, (*nomad.Server).ListNodes)
	if err != nil {
		return nil, err
	}
	return convert.List(nodes, func(n *structs.Node) *api.NodeListStub { return convert.NodeStub(n, fields) }), nil
}

// nodeRead serves GET /v1/node/:id. Like Nomad's, it takes a whole node ID;
// CLIs resolve prefixes through the list.
func (s *HTTPServer) nodeRead(w http.ResponseWriter, r *http.Request) (any, error) {
	key, opts, err := httpserver.IDQuery(r, "node ID")
	if err != nil {
		return nil, err
	}
	return readOne(s, w, r, key, opts, (*nomad.Server).GetNode, "node not found", convert.NodeToAPI)
}

// nodeAllocations serves GET /v1/node/:id/allocations: the whole
// allocations placed on the node, as clients and Nomad's CLI read them.
func (s *HTTPServer) nodeAllocations(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := httpserver.IDQuery(r, "node ID")
	if err != nil {
		return nil, err
	}
	allocs, err := serveRead(s, w, r, opts, func(srv *nomad.Server, ctx context.Context, q nomad.QueryOptions) ([]*structs.Allocation, nomad.QueryMeta, error) {
		return srv.NodeAllocations(ctx, id, q)
	})
	if err != nil {
		return nil, err
	}
	return convert.AllocsToAPI(allocs), nil
}

// nodeEligibility serves PUT and POST /v1/node/:id/eligibility.
func (s *HTTPServer) nodeEligibility(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, id, err := s.nodeWrite(r)
	if err != nil {
		return nil, err
	}
	var req nodeEligibilityRequest
	if err := httpserver.DecodeBody(r, &req, "eligibility request"); err != nil {
		return nil, err
	}
	if err := checkBodyNodeID(req.NodeID, id); err != nil {
		return nil, err
	}
	switch req.Eligibility {
	case structs.NodeSchedulingEligible, structs.NodeSchedulingIneligible:
	default:
		return nil, httpserver.BadRequest("invalid Eligibility %q: must be %q or %q", req.Eligibility, structs.NodeSchedulingEligible, structs.NodeSchedulingIneligible)
	}
	resp, err := srv.NodeUpdateEligibility(r.Context(), id, req.Eligibility)
	return nodeUpdateResult(w, resp, err)
}

// nodeDrain serves PUT and POST /v1/node/:id/drain.
func (s *HTTPServer) nodeDrain(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, id, err := s.nodeWrite(r)
	if err != nil {
		return nil, err
	}
	var req nodeDrainRequest
	if err := httpserver.DecodeBody(r, &req, "drain request"); err != nil {
		return nil, err
	}
	if err := checkBodyNodeID(req.NodeID, id); err != nil {
		return nil, err
	}
	var drain *structs.DrainStrategy
	if req.DrainSpec != nil {
		drain = &structs.DrainStrategy{
			Deadline:         req.DrainSpec.Deadline,
			IgnoreSystemJobs: req.DrainSpec.IgnoreSystemJobs,
		}
	}
	resp, err := srv.NodeUpdateDrain(r.Context(), id, drain, req.MarkEligible)
	return nodeUpdateResult(w, resp, err)
}

// nodeWrite checks what every node write needs: a server, the node ID and
// the region.
func (s *HTTPServer) nodeWrite(r *http.Request) (*nomad.Server, string, error) {
	srv, id, err := s.serverWrite(r, "node ID")
	if err != nil {
		return nil, "", err
	}
	return srv, id, s.checkRegion(r.URL.Query().Get("region"))
}

// checkBodyNodeID rejects a body that names another node than the URL.
func checkBodyNodeID(bodyID, pathID string) error {
	if bodyID != "" && bodyID != pathID {
		return httpserver.BadRequest("NodeID %q in the body does not match %q in the URL", bodyID, pathID)
	}
	return nil
}

func nodeUpdateResult(w http.ResponseWriter, resp *nomad.NodeUpdateResponse, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	evalIDs := resp.EvalIDs
	if evalIDs == nil {
		evalIDs = []string{}
	}
	return &nodeUpdateResponse{
		EvalIDs:         evalIDs,
		EvalCreateIndex: resp.EvalCreateIndex,
		NodeModifyIndex: resp.NodeModifyIndex,
		Index:           resp.Index,
	}, nil
}
