package nomad

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hashicorp/raft"

	"github.com/drover-io/drover/nomad/auth"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/snapshot"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/version"
)

const (
	// snapshotRestoreTimeout bounds the waits for raft to take up a
	// restore and the no-op entry that follows it. The restore itself,
	// which depends on the size of the state, is not bounded.
	snapshotRestoreTimeout = time.Minute

	// snapshotOpenAttempts is how many snapshots SnapshotSave takes
	// before it gives up opening one. Raft's snapshot stores keep only
	// the latest (the in-memory one) or latest few, so a snapshot raft
	// takes on its own may replace the one just taken before it is
	// opened; taking another is harmless.
	snapshotOpenAttempts = 3
)

// SnapshotSave takes a snapshot of the state this server has applied and
// writes it to w as an archive (see package snapshot). On a follower the
// snapshot may lag the leader's state, as a stale read does.
func (s *Server) SnapshotSave(w io.Writer) (*snapshot.Meta, error) {
	rmeta, rc, err := s.openUserSnapshot()
	if err != nil {
		return nil, fmt.Errorf("save snapshot: %w", err)
	}
	defer rc.Close()
	meta := snapshot.Meta{
		Format:        snapshot.FormatVersion,
		ID:            rmeta.ID,
		Index:         rmeta.Index,
		Term:          rmeta.Term,
		Version:       int(rmeta.Version),
		Size:          rmeta.Size,
		DroverVersion: droverVersion(),
		CreateTime:    time.Now().UTC(),
	}
	if err := snapshot.Write(w, meta, rc); err != nil {
		return nil, fmt.Errorf("save snapshot %s: %w", meta.ID, err)
	}
	return &meta, nil
}

// openUserSnapshot has raft take a snapshot now and opens it.
func (s *Server) openUserSnapshot() (*raft.SnapshotMeta, io.ReadCloser, error) {
	var lastErr error
	for range snapshotOpenAttempts {
		f := s.raft.Snapshot()
		if err := f.Error(); err != nil {
			return nil, nil, fmt.Errorf("take a raft snapshot: %w", err)
		}
		meta, rc, err := f.Open()
		if err == nil {
			return meta, rc, nil
		}
		lastErr = err
	}
	return nil, nil, fmt.Errorf("open the raft snapshot: %w", lastErr)
}

func droverVersion() string {
	if version.Prerelease != "" {
		return version.Version + "-" + version.Prerelease
	}
	return version.Version
}

// SnapshotRestore replaces the cluster's state with the one in the archive
// read from r, and returns the archive's metadata and the raft index the
// restore committed at.
//
// It runs only on the leader: on a follower it fails with an error that
// wraps errNotLeader and names the leader's HTTP address. Nothing changes
// unless the archive is whole and its state loads: the archive is read to
// a temporary file, its sums checked and its state decoded before raft is
// given it. Raft then installs the state on the leader and sends it to
// the followers; SnapshotRestore returns once a majority of the servers
// hold it. Each server's FSM swaps in the new store, which wakes the
// blocking queries on the old one.
func (s *Server) SnapshotRestore(ctx context.Context, r io.Reader) (*snapshot.Meta, uint64, error) {
	if err := s.authorize(ctx, auth.Management); err != nil {
		return nil, 0, err
	}
	if !s.IsLeader() {
		return nil, 0, s.errRestoreNotLeader()
	}
	staged, err := s.stageSnapshot(r)
	if err != nil {
		return nil, 0, err
	}
	defer staged.remove(s)
	meta := staged.meta
	if err := ctx.Err(); err != nil {
		return nil, 0, fmt.Errorf("restore snapshot %s: %w", meta.ID, err)
	}
	if !s.IsLeader() {
		return nil, 0, s.errRestoreNotLeader()
	}
	rmeta := &raft.SnapshotMeta{
		ID:      meta.ID,
		Index:   meta.Index,
		Term:    meta.Term,
		Version: raft.SnapshotVersion(meta.Version),
		Size:    meta.Size,
	}
	if err := s.raft.Restore(rmeta, staged.file, snapshotRestoreTimeout); err != nil {
		return nil, 0, fmt.Errorf("restore snapshot %s: %w", meta.ID, raftWriteError(err))
	}
	s.logger.Info("restored snapshot", "id", meta.ID, "snapshot_index", meta.Index, "index", s.raft.LastIndex())
	// The leader's components (broker, blocked evaluations, plan queue,
	// heartbeat timers, periodic jobs) drop what they held of the replaced
	// state and are filled from the restored one, as after an election.
	s.restartLeadership(ctx)
	return meta, s.raft.LastIndex(), nil
}

func (s *Server) errRestoreNotLeader() error {
	where := "the leader is not known yet"
	if addr := s.LeaderHTTPAddr(); addr != "" {
		where = "the leader's HTTP API is at " + addr
	}
	return nomadrpc.WithKind(nomadrpc.ErrNotLeader, fmt.Errorf("restore snapshot: this server is not the leader; send the snapshot to the leader (%s)", where))
}

// stagedSnapshot is an archive's state, checked, in a temporary file.
type stagedSnapshot struct {
	meta *snapshot.Meta
	file *os.File
}

// stageSnapshot reads an archive from r into a temporary file and checks
// it: the archive's sums, raft's snapshot version, and that the state
// decodes as the FSM will decode it. That last check matters: raft takes
// a state the FSM cannot restore as fatal and panics. A bad archive is an
// ErrInvalidRequest naming what is wrong.
func (s *Server) stageSnapshot(r io.Reader) (*stagedSnapshot, error) {
	f, err := os.CreateTemp(s.SnapshotTempDir(), "snapshot-restore-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("restore snapshot: create a temporary file: %w", err)
	}
	staged := &stagedSnapshot{file: f}
	ok := false
	defer func() {
		if !ok {
			staged.remove(s)
		}
	}()

	meta, err := snapshot.Read(r, stagingWriter{f})
	var werr *stagingWriteError
	if errors.As(err, &werr) {
		return nil, fmt.Errorf("restore snapshot: stage the state in %s: %w", f.Name(), werr.err)
	}
	if err != nil {
		return nil, invalidf("restore snapshot: %w", err)
	}
	staged.meta = meta
	if v := raft.SnapshotVersion(meta.Version); v < raft.SnapshotVersionMin || v > raft.SnapshotVersionMax {
		return nil, invalidf("restore snapshot %s: raft snapshot version %d is not one this server reads (%d to %d)",
			meta.ID, meta.Version, raft.SnapshotVersionMin, raft.SnapshotVersionMax)
	}
	if err := rewind(f); err != nil {
		return nil, err
	}
	if _, err := state.Restore(f); err != nil {
		return nil, invalidf("restore snapshot %s: the state in the archive does not load: %w", meta.ID, err)
	}
	if err := rewind(f); err != nil {
		return nil, err
	}
	ok = true
	return staged, nil
}

// stagingWriter marks the errors of writing the staged state, which are
// this server's trouble, apart from those of reading the archive, which
// are the archive's.
type stagingWriter struct{ f *os.File }

func (w stagingWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		return n, &stagingWriteError{err}
	}
	return n, nil
}

type stagingWriteError struct{ err error }

func (e *stagingWriteError) Error() string { return e.err.Error() }
func (e *stagingWriteError) Unwrap() error { return e.err }

func rewind(f *os.File) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("restore snapshot: rewind the temporary file: %w", err)
	}
	return nil
}

func (st *stagedSnapshot) remove(s *Server) {
	name := st.file.Name()
	st.file.Close()
	if err := os.Remove(name); err != nil {
		s.logger.Warn("remove a restored snapshot's temporary file", "path", name, "error", err)
	}
}

// SnapshotTempDir is where temporary copies of snapshots go, such as one
// being restored: the server's directory under the data dir, which has
// room for the state, or "" (the system's temporary directory, for
// os.CreateTemp) for a server without one.
func (s *Server) SnapshotTempDir() string {
	if s.config.inMemory() {
		return ""
	}
	return s.config.serverDir()
}
