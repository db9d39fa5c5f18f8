package raftstore

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
)

const (
	// raftSnapshotsRetained is how many raft snapshots stay on disk.
	raftSnapshotsRetained = 2

	// raftLogCacheSize is how many recent log entries stay in memory in
	// front of the on-disk log, raftLogCacheEntryBytes the size of the
	// largest one that does and raftLogCacheBytes the size of all
	// (LogCache). Raft reads an entry back soon after storing it (a
	// follower to apply it, the leader to send it, at most
	// MaxAppendEntries, 64, at a time), so a few such batches of small
	// entries cover a cluster that keeps up; a follower further behind
	// reads from disk. 512 entries of up to 16 KiB held a server's last
	// few hundred client updates, 1 to 1.5 MiB after a placement of
	// thousands of allocations, for nothing.
	raftLogCacheSize       = 256
	raftLogCacheEntryBytes = 16 << 10
	raftLogCacheBytes      = 256 << 10
)

// Stores are raft's log, stable and snapshot stores, and what must be
// closed after raft shut down.
type Stores struct {
	Logs   raft.LogStore
	Stable raft.StableStore
	Snaps  raft.SnapshotStore
	closer io.Closer // nil when in memory
}

// Open opens the on-disk stores under dir, or in-memory ones
// when dir is empty.
func Open(dir string, logger hclog.Logger) (*Stores, error) {
	if dir == "" {
		return &Stores{
			Logs:   raft.NewInmemStore(),
			Stable: raft.NewInmemStore(),
			Snaps:  raft.NewInmemSnapshotStore(),
		}, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create raft dir: %w", err)
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, raftSnapshotsRetained, logger.Named("raft.snapshots"))
	if err != nil {
		return nil, fmt.Errorf("open raft snapshot store: %w", err)
	}
	bolt, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(dir, "raft.db")})
	if err != nil {
		return nil, fmt.Errorf("open raft log %s: %w", filepath.Join(dir, "raft.db"), err)
	}
	cached, err := NewLogCache(bolt, raftLogCacheSize, raftLogCacheEntryBytes, raftLogCacheBytes)
	if err != nil {
		bolt.Close()
		return nil, fmt.Errorf("create raft log cache: %w", err)
	}
	return &Stores{Logs: cached, Stable: bolt, Snaps: snaps, closer: bolt}, nil
}

// Close closes what the stores hold open, once raft shut down.
func (r *Stores) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}
