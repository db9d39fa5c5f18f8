package api

import (
	"net/http"
	"net/url"
	"strconv"
)

// RootKeyMeta describes a root key of the servers' keyring, never its
// secret, as GET /v1/operator/keyring/keys lists it.
type RootKeyMeta struct {
	KeyID     string
	Algorithm string
	// CreateTime and PublishTime are Unix nanoseconds.
	CreateTime  int64
	CreateIndex uint64
	ModifyIndex uint64
	// State is "active" (the key that signs) or "inactive".
	State       string
	PublishTime int64
}

// Keyring is the handle on the keyring's operator endpoints.
type Keyring struct {
	client *Client
}

// Keyring returns the handle on the keyring's operator endpoints.
func (c *Client) Keyring() *Keyring { return &Keyring{client: c} }

// List returns the metadata of every root key, oldest first.
func (k *Keyring) List(q *QueryOptions) ([]*RootKeyMeta, *QueryMeta, error) {
	var resp []*RootKeyMeta
	qm, err := k.client.query("/v1/operator/keyring/keys", &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// Rotate makes a new active root key and returns it. full also
// re-encrypts every variable with the new key before answering.
func (k *Keyring) Rotate(full bool, q *WriteOptions) (*RootKeyMeta, *WriteMeta, error) {
	var resp struct{ Key *RootKeyMeta }
	var params url.Values
	if full {
		params = url.Values{"full": {"true"}}
	}
	wm, err := k.client.write(http.MethodPut, "/v1/operator/keyring/rotate", params, nil, &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp.Key, wm, nil
}

// Delete removes an inactive root key; force removes it even while
// allocations that may hold identities it signed still run.
func (k *Keyring) Delete(keyID string, force bool, q *WriteOptions) (*WriteMeta, error) {
	params := url.Values{"force": {strconv.FormatBool(force)}}
	return k.client.delete("/v1/operator/keyring/key/"+url.PathEscape(keyID), params, nil, q)
}
