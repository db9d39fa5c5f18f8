package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strings"
)

// snapshotPath is where the cluster's state is saved and restored.
const snapshotPath = "/v1/operator/snapshot"

// ErrSnapshotDigestMismatch is what reading a snapshot fails with when the
// bytes received are not those the agent sent, by its Digest header.
var ErrSnapshotDigestMismatch = errors.New("snapshot does not match the digest the agent sent: it was altered or cut short in transit")

// Snapshot streams a snapshot archive of the cluster's state, from the
// leader unless q allows a stale one. The caller reads it to the end and
// closes it. When the agent sends a Digest header (Drover's and Nomad's
// do), the read that reaches the end fails with ErrSnapshotDigestMismatch
// if the bytes differ from what the agent sent.
func (op *Operator) Snapshot(q *QueryOptions) (io.ReadCloser, error) {
	r := op.client.newRequest(http.MethodGet, snapshotPath)
	op.client.applyQueryOptions(r, q)
	resp, _, err := op.client.send(r)
	if err != nil {
		return nil, err
	}
	body, err := digestReader(resp.Body, resp.Header.Get("Digest"))
	if err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %w", snapshotPath, err)
	}
	return body, nil
}

// SnapshotRestore replaces the cluster's state with the snapshot archive
// read from in, as Snapshot returned it. The agent forwards the archive
// to the leader when it is not the leader itself. It returns once every
// server has been handed the restored state; LastIndex is the raft index
// the restore committed at.
func (op *Operator) SnapshotRestore(in io.Reader, q *WriteOptions) (*WriteMeta, error) {
	if in == nil {
		return nil, errors.New("restore snapshot: no snapshot to read")
	}
	r := op.client.newRequest(http.MethodPut, snapshotPath)
	r.applyWriteOptions(q)
	req, err := op.client.httpRequest(r)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(in)
	req.ContentLength = knownLength(in)
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := op.client.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, responseError(resp)
	}
	wm := &WriteMeta{}
	if wm.LastIndex, err = parseIndex(resp.Header); err != nil {
		return nil, fmt.Errorf("PUT %s: %w", snapshotPath, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDiscardBody))
	return wm, nil
}

// knownLength is the length of readers whose length net/http would find
// itself; -1 (chunked) for any other, such as a file.
func knownLength(in io.Reader) int64 {
	switch v := in.(type) {
	case *bytes.Buffer:
		return int64(v.Len())
	case *bytes.Reader:
		return int64(v.Len())
	case *strings.Reader:
		return int64(v.Len())
	}
	return -1
}

// digestReader checks body against an RFC 3230 Digest header,
// "sha-256=<base64>", once it has been read to its end. An empty header
// checks nothing.
func digestReader(body io.ReadCloser, digest string) (io.ReadCloser, error) {
	if digest == "" {
		return body, nil
	}
	algo, sum, ok := strings.Cut(digest, "=")
	if !ok || !strings.EqualFold(algo, "sha-256") {
		return nil, fmt.Errorf("unsupported Digest header %q: expected sha-256=<base64>", digest)
	}
	want, err := base64.StdEncoding.DecodeString(sum)
	if err != nil || len(want) != sha256.Size {
		return nil, fmt.Errorf("malformed Digest header %q", digest)
	}
	return &digestCheckingReader{body: body, hash: sha256.New(), want: want}, nil
}

type digestCheckingReader struct {
	body io.ReadCloser
	hash hash.Hash
	want []byte
}

func (d *digestCheckingReader) Read(p []byte) (int, error) {
	n, err := d.body.Read(p)
	d.hash.Write(p[:n])
	if errors.Is(err, io.EOF) && !bytes.Equal(d.hash.Sum(nil), d.want) {
		return n, ErrSnapshotDigestMismatch
	}
	return n, err
}

func (d *digestCheckingReader) Close() error { return d.body.Close() }
