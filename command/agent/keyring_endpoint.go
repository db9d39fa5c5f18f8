package agent

import (
	"net/http"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// Paths of the keyring's operator endpoints.
const (
	keyringKeysPath   = "/v1/operator/keyring/keys"
	keyringRotatePath = "/v1/operator/keyring/rotate"
	keyringKeyPath    = "/v1/operator/keyring/key/{id}"
)

// keyringList serves GET /v1/operator/keyring/keys: the metadata of every
// root key, never their secrets. It is a blocking query.
func (s *HTTPServer) keyringList(w http.ResponseWriter, r *http.Request) (any, error) {
	return readList(s, w, r, (*nomad.Server).ListRootKeys, rootKeyMetaToAPI)
}

// keyringRotate serves PUT and POST /v1/operator/keyring/rotate: a new
// active root key, answered as {"Key": ...}. Nomad's ?algo chooses the
// cipher of Variables, which Drover does not have: only Drover's own
// algorithm is taken. ?full also re-encrypts every variable with the new
// key before answering. A prepublished key (?publish_time) is not
// supported and is refused.
func (s *HTTPServer) keyringRotate(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	if algo := q.Get("algo"); algo != "" && algo != structs.RootKeyAlgorithmEd25519 {
		return nil, httpserver.BadRequest("unsupported algo %q: Drover's root keys are %s signing keys", algo, structs.RootKeyAlgorithmEd25519)
	}
	if q.Has("publish_time") {
		return nil, httpserver.BadRequest("publish_time is not supported: a rotated key is published and becomes active at once")
	}
	full, err := httpserver.ParseBoolParam(r, "full")
	if err != nil {
		return nil, err
	}
	resp, err := srv.RotateRootKey(r.Context(), &nomad.RootKeyRotateRequest{Full: full})
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return struct{ Key *api.RootKeyMeta }{rootKeyMetaToAPI(resp.Key)}, nil
}

// keyringDelete serves DELETE /v1/operator/keyring/key/:id[?force=true]:
// removes an inactive root key.
func (s *HTTPServer) keyringDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, id, err := s.serverWrite(r, "root key ID")
	if err != nil {
		return nil, err
	}
	if !structs.ValidRootKeyID(id) {
		return nil, httpserver.BadRequest("root key ID %q is not a UUID: list the keys with -verbose for their full IDs", id)
	}
	force, err := httpserver.ParseBoolParam(r, "force")
	if err != nil {
		return nil, err
	}
	resp, err := srv.DeleteRootKey(r.Context(), &nomad.RootKeyDeleteRequest{KeyID: id, Force: force})
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return nil, nil
}

func rootKeyMetaToAPI(m *structs.RootKeyMeta) *api.RootKeyMeta {
	if m == nil {
		return nil
	}
	return &api.RootKeyMeta{
		KeyID:       m.KeyID,
		Algorithm:   m.Algorithm,
		CreateTime:  m.CreateTime,
		CreateIndex: m.CreateIndex,
		ModifyIndex: m.ModifyIndex,
		State:       m.State,
		PublishTime: m.PublishTime,
	}
}
