package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Limits on how much of a response the client reads into memory. Streams
// handed to the caller (logs, file contents) are not limited.
const (
	maxErrorBody    = 64 << 10
	maxDiscardBody  = 64 << 10
	maxJSONResponse = 256 << 20
	maxRawResponse  = 64 << 20
)

// request is one HTTP exchange being assembled.
type request struct {
	method string
	// path is already escaped, such as "/v1/job/a%2Fb".
	path   string
	params url.Values
	token  string
	body   any
	ctx    context.Context
}

func (c *Client) newRequest(method, path string) *request {
	r := &request{
		method: method,
		path:   path,
		params: url.Values{},
		token:  c.cfg.Token,
		ctx:    context.Background(),
	}
	if c.cfg.Region != "" {
		r.params.Set("region", c.cfg.Region)
	}
	if c.cfg.Namespace != "" {
		r.params.Set("namespace", c.cfg.Namespace)
	}
	return r
}

func (c *Client) applyQueryOptions(r *request, q *QueryOptions) {
	wait := c.cfg.WaitTime
	if q != nil {
		r.setScope(q.Region, q.Namespace, q.AuthToken)
		r.ctx = q.Context()
		if q.AllowStale {
			r.params.Set("stale", "true")
		}
		if q.WaitIndex > 0 {
			r.params.Set("index", strconv.FormatUint(q.WaitIndex, 10))
		}
		if q.WaitTime > 0 {
			wait = q.WaitTime
		}
		if q.Prefix != "" {
			r.params.Set("prefix", q.Prefix)
		}
		for k, v := range q.Params {
			r.params.Set(k, v)
		}
	}
	if wait > 0 {
		r.params.Set("wait", formatWait(wait))
	}
}

func (r *request) applyWriteOptions(q *WriteOptions) {
	if q == nil {
		return
	}
	r.setScope(q.Region, q.Namespace, q.AuthToken)
	if q.IdempotencyToken != "" {
		r.params.Set("idempotency_token", q.IdempotencyToken)
	}
	r.ctx = q.Context()
}

func (r *request) setScope(region, namespace, token string) {
	if region != "" {
		r.params.Set("region", region)
	}
	if namespace != "" {
		r.params.Set("namespace", namespace)
	}
	if token != "" {
		r.token = token
	}
}

// formatWait writes a wait time in whole milliseconds, as the agent expects,
// rounding a positive sub-millisecond wait up so that it is not lost.
func formatWait(d time.Duration) string {
	ms := d / time.Millisecond
	if ms == 0 && d > 0 {
		ms = 1
	}
	return strconv.FormatInt(int64(ms), 10) + "ms"
}

func (c *Client) httpRequest(r *request) (*http.Request, error) {
	target := c.base.String() + r.path
	if len(r.params) > 0 {
		target += "?" + r.params.Encode()
	}
	var body io.Reader
	if r.body != nil {
		buf, err := json.Marshal(r.body)
		if err != nil {
			return nil, fmt.Errorf("encode body of %s %s: %w", r.method, r.path, err)
		}
		body = bytes.NewReader(buf)
	}
	req, err := http.NewRequestWithContext(r.ctx, r.method, target, body)
	if err != nil {
		return nil, fmt.Errorf("build %s %s: %w", r.method, r.path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.token != "" {
		req.Header.Set("X-Nomad-Token", r.token)
	}
	return req, nil
}

// send performs r and returns the response of a 2xx answer, whose body the
// caller must close, and how long the agent took to answer.
func (c *Client) send(r *request) (*http.Response, time.Duration, error) {
	req, err := c.httpRequest(r)
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, err
	}
	took := time.Since(start)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, 0, responseError(resp)
	}
	return resp, took, nil
}

func responseError(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return UnexpectedResponseError{
		StatusCode: resp.StatusCode,
		Status:     resp.Status,
		Body:       strings.TrimSpace(string(body)),
	}
}

// query sends a GET and decodes its JSON answer into out.
func (c *Client) query(path string, out any, q *QueryOptions) (*QueryMeta, error) {
	r := c.newRequest(http.MethodGet, path)
	c.applyQueryOptions(r, q)
	resp, took, err := c.send(r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	qm := &QueryMeta{RequestTime: took}
	if err := parseQueryMeta(resp.Header, qm); err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if err := decodeJSON(resp.Body, out); err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	return qm, nil
}

// rawQuery sends a GET and hands back the open response body.
func (c *Client) rawQuery(path string, q *QueryOptions) (io.ReadCloser, error) {
	r := c.newRequest(http.MethodGet, path)
	c.applyQueryOptions(r, q)
	resp, _, err := c.send(r)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

func (c *Client) put(path string, in, out any, q *WriteOptions) (*WriteMeta, error) {
	return c.write(http.MethodPut, path, nil, in, out, q)
}

func (c *Client) post(path string, in, out any, q *WriteOptions) (*WriteMeta, error) {
	return c.write(http.MethodPost, path, nil, in, out, q)
}

func (c *Client) delete(path string, params url.Values, out any, q *WriteOptions) (*WriteMeta, error) {
	return c.write(http.MethodDelete, path, params, nil, out, q)
}

// write sends in as the JSON body of a write, with the given extra query
// parameters, and decodes the JSON answer into out unless out is nil.
func (c *Client) write(method, path string, params url.Values, in, out any, q *WriteOptions) (*WriteMeta, error) {
	r := c.newRequest(method, path)
	r.applyWriteOptions(q)
	for k, vs := range params {
		r.params[k] = vs
	}
	r.body = in
	return c.exchange(r, out)
}

// writeQuery sends a write to an endpoint that, as in Nomad, is shaped by
// query options: the client-agent endpoints that act on an allocation.
func (c *Client) writeQuery(method, path string, in, out any, q *QueryOptions) (*WriteMeta, error) {
	r := c.newRequest(method, path)
	c.applyQueryOptions(r, q)
	r.body = in
	return c.exchange(r, out)
}

func (c *Client) exchange(r *request, out any) (*WriteMeta, error) {
	resp, took, err := c.send(r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	wm := &WriteMeta{RequestTime: took}
	if wm.LastIndex, err = parseIndex(resp.Header); err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	if out == nil {
		// Reading the rest lets the connection be reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDiscardBody))
		return wm, nil
	}
	if err := decodeJSON(resp.Body, out); err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	return wm, nil
}

// parseQueryMeta reads the X-Nomad-* headers of a read. A header the agent
// leaves out (an endpoint that is not backed by the state store) reads as
// zero; a malformed one is an error.
func parseQueryMeta(h http.Header, qm *QueryMeta) error {
	index, err := parseIndex(h)
	if err != nil {
		return err
	}
	qm.LastIndex = index
	qm.NextToken = h.Get("X-Nomad-NextToken")

	if v := h.Get("X-Nomad-LastContact"); v != "" {
		ms, err := strconv.ParseUint(v, 10, 63)
		if err != nil || ms > uint64(maxDurationMs) {
			return fmt.Errorf("header X-Nomad-LastContact %q is not a count of milliseconds", v)
		}
		qm.LastContact = time.Duration(ms) * time.Millisecond
	}

	if v := h.Get("X-Nomad-KnownLeader"); v != "" {
		known, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("header X-Nomad-KnownLeader %q is not true or false", v)
		}
		qm.KnownLeader = known
	}
	return nil
}

const maxDurationMs = int64(^uint64(0)>>1) / int64(time.Millisecond)

func parseIndex(h http.Header) (uint64, error) {
	v := h.Get("X-Nomad-Index")
	if v == "" {
		return 0, nil
	}
	index, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("header X-Nomad-Index %q is not an index", v)
	}
	return index, nil
}

// decodeJSON decodes one JSON value from body into out, refusing bodies
// larger than maxJSONResponse rather than buffering without bound.
func decodeJSON(body io.Reader, out any) error {
	return decodeJSONCapped(body, out, maxJSONResponse)
}

func decodeJSONCapped(body io.Reader, out any, limit int64) error {
	dec := json.NewDecoder(&cappedReader{r: body, left: limit})
	if err := dec.Decode(out); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("decode response: empty body")
		}
		return fmt.Errorf("decode response: %w", err)
	}
	return nil
}

// readAllCapped reads body whole, failing once it passes limit bytes.
func readAllCapped(body io.Reader, limit int64) ([]byte, error) {
	return io.ReadAll(&cappedReader{r: body, left: limit})
}

// cappedReader fails, instead of silently truncating, once more than left
// bytes have been read.
type cappedReader struct {
	r    io.Reader
	left int64
	read int64
}

var errResponseTooLarge = errors.New("response too large")

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// At the limit: the body is fine if it ends here.
		var probe [1]byte
		if n, err := c.r.Read(probe[:]); n == 0 {
			return 0, err
		}
		return 0, fmt.Errorf("%w: more than %d bytes", errResponseTooLarge, c.read)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	c.read += int64(n)
	return n, err
}
