package api

import (
	"errors"
	"net/url"
)

// ACLPolicies is the handle on the ACL policy endpoints.
type ACLPolicies struct {
	client *Client
}

// ACLPolicies returns the handle on the ACL policy endpoints.
func (c *Client) ACLPolicies() *ACLPolicies { return &ACLPolicies{client: c} }

func policyPath(name string) string { return "/v1/acl/policy/" + url.PathEscape(name) }

// List returns the policies the caller may see.
func (p *ACLPolicies) List(q *QueryOptions) ([]*ACLPolicyListStub, *QueryMeta, error) {
	var resp []*ACLPolicyListStub
	qm, err := p.client.query("/v1/acl/policies", &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// Upsert creates or replaces a policy.
func (p *ACLPolicies) Upsert(policy *ACLPolicy, q *WriteOptions) (*WriteMeta, error) {
	if policy == nil || policy.Name == "" {
		return nil, errors.New("missing policy name")
	}
	return p.client.put(policyPath(policy.Name), policy, nil, q)
}

// Delete removes a policy.
func (p *ACLPolicies) Delete(name string, q *WriteOptions) (*WriteMeta, error) {
	if name == "" {
		return nil, errors.New("missing policy name")
	}
	return p.client.delete(policyPath(name), nil, nil, q)
}

// Info returns one policy.
func (p *ACLPolicies) Info(name string, q *QueryOptions) (*ACLPolicy, *QueryMeta, error) {
	if name == "" {
		return nil, nil, errors.New("missing policy name")
	}
	var resp ACLPolicy
	qm, err := p.client.query(policyPath(name), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, qm, nil
}

// ACLTokens is the handle on the ACL token endpoints.
type ACLTokens struct {
	client *Client
}

// ACLTokens returns the handle on the ACL token endpoints.
func (c *Client) ACLTokens() *ACLTokens { return &ACLTokens{client: c} }

func tokenPath(accessorID string) string { return "/v1/acl/token/" + url.PathEscape(accessorID) }

// Bootstrap creates the cluster's first management token; it works once.
func (t *ACLTokens) Bootstrap(q *WriteOptions) (*ACLToken, *WriteMeta, error) {
	return t.BootstrapOpts("", q)
}

// BootstrapOpts is Bootstrap with the secret ID the token is to have ("":
// a random one).
func (t *ACLTokens) BootstrapOpts(secret string, q *WriteOptions) (*ACLToken, *WriteMeta, error) {
	var resp ACLToken
	var body any
	if secret != "" {
		body = &BootstrapRequest{BootstrapSecret: secret}
	}
	wm, err := t.client.put("/v1/acl/bootstrap", body, &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, wm, nil
}

// List returns every token, without secrets (management tokens only).
func (t *ACLTokens) List(q *QueryOptions) ([]*ACLTokenListStub, *QueryMeta, error) {
	var resp []*ACLTokenListStub
	qm, err := t.client.query("/v1/acl/tokens", &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// Create makes a token with new IDs and returns it, secret included.
func (t *ACLTokens) Create(token *ACLToken, q *WriteOptions) (*ACLToken, *WriteMeta, error) {
	if token.AccessorID != "" {
		return nil, nil, errors.New("cannot specify Accessor ID")
	}
	var resp ACLToken
	wm, err := t.client.put("/v1/acl/token", token, &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, wm, nil
}

// Update changes a token's name, policies or global flag.
func (t *ACLTokens) Update(token *ACLToken, q *WriteOptions) (*ACLToken, *WriteMeta, error) {
	if token.AccessorID == "" {
		return nil, nil, errors.New("missing accessor ID")
	}
	var resp ACLToken
	wm, err := t.client.put(tokenPath(token.AccessorID), token, &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, wm, nil
}

// Delete removes a token.
func (t *ACLTokens) Delete(accessorID string, q *WriteOptions) (*WriteMeta, error) {
	if accessorID == "" {
		return nil, errors.New("missing accessor ID")
	}
	return t.client.delete(tokenPath(accessorID), nil, nil, q)
}

// Info returns a token by its accessor ID.
func (t *ACLTokens) Info(accessorID string, q *QueryOptions) (*ACLToken, *QueryMeta, error) {
	if accessorID == "" {
		return nil, nil, errors.New("missing accessor ID")
	}
	var resp ACLToken
	qm, err := t.client.query(tokenPath(accessorID), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, qm, nil
}

// Self returns the caller's own token.
func (t *ACLTokens) Self(q *QueryOptions) (*ACLToken, *QueryMeta, error) {
	var resp ACLToken
	qm, err := t.client.query("/v1/acl/token/self", &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, qm, nil
}

// Namespaces is the handle on the namespace endpoints.
type Namespaces struct {
	client *Client
}

// Namespaces returns the handle on the namespace endpoints.
func (c *Client) Namespaces() *Namespaces { return &Namespaces{client: c} }

// List returns the namespaces the caller may see, sorted by name.
func (n *Namespaces) List(q *QueryOptions) ([]*Namespace, *QueryMeta, error) {
	var resp []*Namespace
	qm, err := n.client.query("/v1/namespaces", &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// Info returns one namespace.
func (n *Namespaces) Info(name string, q *QueryOptions) (*Namespace, *QueryMeta, error) {
	var resp Namespace
	qm, err := n.client.query("/v1/namespace/"+url.PathEscape(name), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, qm, nil
}

// Register creates or replaces a namespace.
func (n *Namespaces) Register(ns *Namespace, q *WriteOptions) (*WriteMeta, error) {
	if ns == nil || ns.Name == "" {
		return nil, errors.New("missing namespace name")
	}
	return n.client.put("/v1/namespace/"+url.PathEscape(ns.Name), ns, nil, q)
}

// Delete removes a namespace, which must have no jobs.
func (n *Namespaces) Delete(name string, q *WriteOptions) (*WriteMeta, error) {
	return n.client.delete("/v1/namespace/"+url.PathEscape(name), nil, nil, q)
}
