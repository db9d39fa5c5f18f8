package api

import (
	"context"
	"maps"
	"time"
)

// QueryOptions shape a read. The zero value reads with the client's
// configured region, namespace and token, from the leader, without blocking.
type QueryOptions struct {
	// Region and Namespace override the client's configuration.
	Region    string
	Namespace string

	// AllowStale lets any server answer, not only the leader.
	AllowStale bool

	// WaitIndex turns the read into a blocking query: the server answers
	// once its state is newer than this index or WaitTime has passed.
	WaitIndex uint64
	WaitTime  time.Duration

	// Prefix filters list endpoints by ID prefix.
	Prefix string

	// Params are extra query parameters, such as "related" for an evaluation.
	Params map[string]string

	// AuthToken overrides the client's configured token.
	AuthToken string

	ctx context.Context
}

// WithContext returns a copy of o whose requests are bound to ctx: cancelling
// ctx abandons the request, including a blocking query that is still waiting.
// A nil o gives options that differ from the defaults only in their context.
func (o *QueryOptions) WithContext(ctx context.Context) *QueryOptions {
	var c QueryOptions
	if o != nil {
		c = *o
	}
	c.ctx = ctx
	return &c
}

// Context returns the context requests made with o are bound to.
func (o *QueryOptions) Context() context.Context {
	if o == nil || o.ctx == nil {
		return context.Background()
	}
	return o.ctx
}

// WriteOptions shape a write. The zero value writes with the client's
// configured region, namespace and token.
type WriteOptions struct {
	Region    string
	Namespace string
	AuthToken string
	// IdempotencyToken makes a dispatch idempotent: a second with the
	// same token returns the job the first created (query parameter
	// idempotency_token, as Nomad's).
	IdempotencyToken string

	ctx context.Context
}

// WithContext returns a copy of o whose requests are bound to ctx.
func (o *WriteOptions) WithContext(ctx context.Context) *WriteOptions {
	var c WriteOptions
	if o != nil {
		c = *o
	}
	c.ctx = ctx
	return &c
}

// Context returns the context requests made with o are bound to.
func (o *WriteOptions) Context() context.Context {
	if o == nil || o.ctx == nil {
		return context.Background()
	}
	return o.ctx
}

// withoutParam returns a copy of q without the query parameter key.
func withoutParam(q *QueryOptions, key string) *QueryOptions {
	c := withParam(q, key, "")
	delete(c.Params, key)
	return c
}

// withParam returns a copy of q with one more query parameter.
func withParam(q *QueryOptions, key, value string) *QueryOptions {
	return withParams(q, map[string]string{key: value})
}

// withParams returns a copy of q with more query parameters, leaving the
// caller's options, and their Params map, untouched.
func withParams(q *QueryOptions, extra map[string]string) *QueryOptions {
	var c QueryOptions
	if q != nil {
		c = *q
	}
	params := make(map[string]string, len(c.Params)+len(extra))
	maps.Copy(params, c.Params)
	maps.Copy(params, extra)
	c.Params = params
	return &c
}
