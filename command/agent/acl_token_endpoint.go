package agent

import (
	"net/http"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// aclTokensList serves GET /v1/acl/tokens: every token, without secrets.
func (s *HTTPServer) aclTokensList(w http.ResponseWriter, r *http.Request) (any, error) {
	return readList(s, w, r, (*nomad.Server).ListACLTokens, convert.ACLTokenStub)
}

// aclTokenRead serves GET /v1/acl/token/:accessor_id.
func (s *HTTPServer) aclTokenRead(w http.ResponseWriter, r *http.Request) (any, error) {
	key, opts, err := httpserver.IDQuery(r, "accessor ID")
	if err != nil {
		return nil, err
	}
	return readOne(s, w, r, key, opts, (*nomad.Server).GetACLToken, "ACL token not found", convert.ACLTokenToAPI)
}

// aclTokenSelf serves GET /v1/acl/token/self: the caller's own token.
func (s *HTTPServer) aclTokenSelf(w http.ResponseWriter, r *http.Request) (any, error) {
	id := requestIdentity(r)
	if id.token == nil {
		return nil, httpserver.BadRequest("ACL support disabled: there is no token to show")
	}
	if err := s.setLatestMeta(w); err != nil {
		return nil, err
	}
	return convert.ACLTokenToAPI(id.token), nil
}

// aclTokenCreate serves PUT and POST /v1/acl/token: a new token, whose
// secret is in the answer and nowhere else the creator can see it later
// but in a read by a management token.
func (s *HTTPServer) aclTokenCreate(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	in, err := decodeToken(r)
	if err != nil {
		return nil, err
	}
	if in.AccessorID != "" {
		return nil, httpserver.BadRequest("a new token gets its accessor ID from the server; to create one with chosen IDs, PUT /v1/acl/token/:accessor_id")
	}
	return s.upsertToken(w, r, srv, in)
}

// aclTokenUpdate serves PUT and POST /v1/acl/token/:accessor_id: update
// a token, or create one with the accessor and secret IDs given (a token
// carried over from elsewhere).
func (s *HTTPServer) aclTokenUpdate(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, id, err := s.serverWrite(r, "accessor ID")
	if err != nil {
		return nil, err
	}
	in, err := decodeToken(r)
	if err != nil {
		return nil, err
	}
	if in.AccessorID != "" && in.AccessorID != id {
		return nil, httpserver.BadRequest("accessor ID %q in the body does not match %q in the URL", in.AccessorID, id)
	}
	in.AccessorID = id
	return s.upsertToken(w, r, srv, in)
}

func decodeToken(r *http.Request) (*structs.ACLToken, error) {
	var in api.ACLToken
	if err := httpserver.DecodeBody(r, &in, "ACL token"); err != nil {
		return nil, err
	}
	token, err := convert.ACLTokenFromAPI(&in)
	if err != nil {
		return nil, httpserver.BadRequest("%s", err)
	}
	return token, nil
}

func (s *HTTPServer) upsertToken(w http.ResponseWriter, r *http.Request, srv *nomad.Server, in *structs.ACLToken) (any, error) {
	resp, err := srv.UpsertACLTokens(r.Context(), &nomad.ACLTokenUpsertRequest{Tokens: []*structs.ACLToken{in}})
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return convert.ACLTokenToAPI(resp.Tokens[0]), nil
}

// aclTokenDelete serves DELETE /v1/acl/token/:accessor_id.
func (s *HTTPServer) aclTokenDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, id, err := s.serverWrite(r, "accessor ID")
	if err != nil {
		return nil, err
	}
	resp, err := srv.DeleteACLTokens(r.Context(), &nomad.ACLTokenDeleteRequest{AccessorIDs: []string{id}})
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return nil, nil
}
