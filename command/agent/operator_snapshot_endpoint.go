package agent

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"

	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
)

// operatorSnapshotPath is where the cluster's state is saved (GET) and
// restored (PUT).
const operatorSnapshotPath = "/v1/operator/snapshot"

// maxSnapshotBytes bounds the body of a restore: a snapshot archive may be
// far larger than the JSON bodies of other requests.
const maxSnapshotBytes = 1 << 30

// snapshotSave serves GET /v1/operator/snapshot: a snapshot archive of the
// state, from the leader (a follower forwards the request to it) or with
// ?stale from this server. The archive is written whole to a temporary
// file first, so that the response can carry its length and its Digest
// (which Nomad's client checks), and so that a failure is a clean error
// rather than a cut stream. X-Nomad-Index is the snapshot's raft index.
func (s *HTTPServer) snapshotSave(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	opts, err := httpserver.ParseQueryOptions(r)
	if err != nil {
		return nil, err
	}
	if err := s.checkRegion(opts.Region); err != nil {
		return nil, err
	}
	if !opts.Stale && !srv.IsLeader() {
		return s.snapshotToLeader(w, r, srv)
	}

	f, err := os.CreateTemp(srv.SnapshotTempDir(), "snapshot-save-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("save snapshot: create a temporary file: %w", err)
	}
	defer func() {
		f.Close()
		if err := os.Remove(f.Name()); err != nil {
			s.logger.Warn("remove a saved snapshot's temporary file", "path", f.Name(), "error", err)
		}
	}()
	h := sha256.New()
	meta, err := srv.SnapshotSave(io.MultiWriter(f, h))
	if err != nil {
		return nil, err
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, fmt.Errorf("save snapshot: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("save snapshot: rewind the temporary file: %w", err)
	}

	httpserver.SetQueryMeta(w, srv.QueryMetaAt(meta.Index))
	hdr := w.Header()
	hdr.Set("Content-Type", "application/octet-stream")
	hdr.Set("Content-Length", strconv.FormatInt(size, 10))
	hdr.Set("Digest", "sha-256="+base64.StdEncoding.EncodeToString(h.Sum(nil)))
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, f); err != nil {
		s.logger.Debug("send snapshot", "id", meta.ID, "error", err)
	}
	return nil, nil
}

// snapshotRestore serves PUT /v1/operator/snapshot: the body is a snapshot
// archive that replaces the cluster's state. It runs on the leader; a
// follower forwards the request, body and all, to the leader's HTTP API.
// An archive that is truncated, altered or not a snapshot is refused with
// 400 and changes nothing.
func (s *HTTPServer) snapshotRestore(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.restoreSnapshot(w, r, maxSnapshotBytes)
}

func (s *HTTPServer) restoreSnapshot(w http.ResponseWriter, r *http.Request, limit int64) (any, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	if err := s.checkRegion(r.URL.Query().Get("region")); err != nil {
		return nil, err
	}
	if !srv.IsLeader() {
		return s.snapshotToLeader(w, r, srv)
	}
	body := r.Body
	if body == nil || body == http.NoBody {
		return nil, httpserver.BadRequest("missing request body: expected a snapshot archive, as GET %s or 'drover operator snapshot save' writes it", operatorSnapshotPath)
	}
	if r.ContentLength > limit {
		return nil, httpserver.NewError(http.StatusRequestEntityTooLarge, "snapshot too large: %d bytes, the limit is %d", r.ContentLength, limit)
	}
	_, index, err := srv.SnapshotRestore(r.Context(), http.MaxBytesReader(w, body, limit))
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, index)
	w.WriteHeader(http.StatusOK)
	return nil, nil
}

// snapshotToLeader forwards a snapshot request that must run on the
// leader to the leader's HTTP API, body and all: a snapshot is too large
// to go through the servers' RPC the way other writes do. A request that
// was already forwarded is not forwarded again.
func (s *HTTPServer) snapshotToLeader(w http.ResponseWriter, r *http.Request, srv *nomad.Server) (any, error) {
	if r.Header.Get(forwardedHeader) != "" {
		return nil, httpserver.NewError(http.StatusServiceUnavailable, "this server is no longer the leader; try again")
	}
	if !srv.KnownLeader() {
		return nil, httpserver.NewError(http.StatusInternalServerError, "No cluster leader")
	}
	addr := srv.LeaderHTTPAddr()
	if addr == "" {
		return nil, httpserver.NewError(http.StatusServiceUnavailable, "the leader (RPC address %s) has not told its HTTP address yet; try again, or send the request to the leader's agent", srv.Leader())
	}
	s.forward(w, r, s.serverTarget(addr))
	return nil, nil
}
