package agent

import (
	"net/http"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// aclPoliciesList serves GET /v1/acl/policies: every policy for a
// management token, else those the caller's token names.
func (s *HTTPServer) aclPoliciesList(w http.ResponseWriter, r *http.Request) (any, error) {
	return readList(s, w, r, (*nomad.Server).ListACLPolicies, convert.ACLPolicyStub)
}

// aclPolicyRead serves GET /v1/acl/policy/:name.
func (s *HTTPServer) aclPolicyRead(w http.ResponseWriter, r *http.Request) (any, error) {
	key, opts, err := httpserver.PathQuery(r, "name", "policy name")
	if err != nil {
		return nil, err
	}
	return readOne(s, w, r, key, opts, (*nomad.Server).GetACLPolicy, "ACL policy not found", convert.ACLPolicyToAPI)
}

// aclPolicyWrite serves PUT and POST /v1/acl/policy/:name: create or
// replace the policy, whose rules must parse.
func (s *HTTPServer) aclPolicyWrite(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, name, err := s.serverWriteNamed(r, "policy name")
	if err != nil {
		return nil, err
	}
	var in api.ACLPolicy
	if err := httpserver.DecodeBody(r, &in, "ACL policy"); err != nil {
		return nil, err
	}
	if in.Name != "" && in.Name != name {
		return nil, httpserver.BadRequest("policy name %q in the body does not match %q in the URL", in.Name, name)
	}
	if in.JobACL != nil {
		return nil, httpserver.BadRequest("policy field JobACL is not supported: Drover has no workload identities")
	}
	resp, err := srv.UpsertACLPolicies(r.Context(), &nomad.ACLPolicyUpsertRequest{Policies: []*structs.ACLPolicy{{
		Name: name, Description: in.Description, Rules: in.Rules,
	}}})
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return nil, nil
}

// aclPolicyDelete serves DELETE /v1/acl/policy/:name.
func (s *HTTPServer) aclPolicyDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, name, err := s.serverWriteNamed(r, "policy name")
	if err != nil {
		return nil, err
	}
	resp, err := srv.DeleteACLPolicies(r.Context(), &nomad.ACLPolicyDeleteRequest{Names: []string{name}})
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return nil, nil
}

// serverWriteNamed is serverWrite for the objects a URL names by {name}.
func (s *HTTPServer) serverWriteNamed(r *http.Request, what string) (*nomad.Server, string, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, "", err
	}
	name := r.PathValue("name")
	if err := httpserver.CheckID(what, name); err != nil {
		return nil, "", err
	}
	return srv, name, nil
}
