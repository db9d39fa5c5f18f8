package nomad

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
)

const (
	// raftSnapshotsRetained is how many raft snapshots stay on disk.
	raftSnapshotsRetained = 2

	// raftLogCacheSize is how many recent log entries stay in memory in
	// front of the on-disk log, raftLogCacheEntryBytes the size of the
	// largest one that does and raftLogCacheBytes the size of all
	// (raftLogCache). Raft reads an entry back soon after storing it (a
	// follower to apply it, the leader to send it, at most
	// MaxAppendEntries, 64, at a time), so a few such batches of small
	// entries cover a cluster that keeps up; a follower further behind
	// reads from disk. 512 entries of up to 16 KiB held a server's last
	// few hundred client updates, 1 to 1.5 MiB after a placement of
	// thousands of allocations, for nothing.
	raftLogCacheSize       = 256
	raftLogCacheEntryBytes = 16 << 10
	raftLogCacheBytes      = 256 << 10

	// raftTransportMaxPool is how many outbound raft connections are kept
	// per peer.
	raftTransportMaxPool = 3

	// raftTransportTimeout bounds raft's network I/O.
	raftTransportTimeout = 10 * time.Second
)

// raftStores are raft's log, stable and snapshot stores, and what must be
// closed after raft shut down.
type raftStores struct {
	logs   raft.LogStore
	stable raft.StableStore
	snaps  raft.SnapshotStore
	closer io.Closer // nil when in memory
}

// openRaftStores opens the on-disk stores under <DataDir>/server/raft, or
// in-memory ones in dev mode or without a data dir.
func openRaftStores(cfg *Config) (*raftStores, error) {
	if cfg.inMemory() {
		return &raftStores{
			logs:   raft.NewInmemStore(),
			stable: raft.NewInmemStore(),
			snaps:  raft.NewInmemSnapshotStore(),
		}, nil
	}
	dir := filepath.Join(cfg.serverDir(), "raft")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create raft dir: %w", err)
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, raftSnapshotsRetained, cfg.Logger.Named("raft.snapshots"))
	if err != nil {
		return nil, fmt.Errorf("open raft snapshot store: %w", err)
	}
	bolt, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(dir, "raft.db")})
	if err != nil {
		return nil, fmt.Errorf("open raft log %s: %w", filepath.Join(dir, "raft.db"), err)
	}
	cached, err := newRaftLogCache(bolt, raftLogCacheSize, raftLogCacheEntryBytes, raftLogCacheBytes)
	if err != nil {
		bolt.Close()
		return nil, fmt.Errorf("create raft log cache: %w", err)
	}
	return &raftStores{logs: cached, stable: bolt, snaps: snaps, closer: bolt}, nil
}

// setupRaft starts raft over the mux's raft layer. A server with no raft
// state and no one to wait for bootstraps a cluster of itself.
func (s *Server) setupRaft() error {
	rc := *s.config.RaftConfig
	rc.LocalID = raft.ServerID(s.nodeID)
	rc.Logger = s.logger.Named("raft")
	rc.LogOutput = nil

	s.raftTransport = raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream:  s.raftLayer,
		MaxPool: raftTransportMaxPool,
		Timeout: raftTransportTimeout,
		Logger:  s.logger.Named("raft.transport"),
	})

	stores, err := openRaftStores(s.config)
	if err != nil {
		return err
	}
	s.raftStores = stores

	hasState, err := raft.HasExistingState(stores.logs, stores.stable, stores.snaps)
	if err != nil {
		return fmt.Errorf("inspect raft state: %w", err)
	}
	if !hasState && s.config.BootstrapExpect <= 1 {
		cfg := raft.Configuration{Servers: []raft.Server{s.raftServer()}}
		if err := raft.BootstrapCluster(&rc, stores.logs, stores.stable, stores.snaps, s.raftTransport, cfg); err != nil {
			return fmt.Errorf("bootstrap single-server cluster: %w", err)
		}
		s.logger.Info("bootstrapped a single-server cluster", "id", s.nodeID, "address", s.advertise)
	}

	r, err := raft.NewRaft(&rc, s.fsm, stores.logs, stores.stable, stores.snaps, s.raftTransport)
	if err != nil {
		return fmt.Errorf("start raft: %w", err)
	}
	s.raft = r
	return nil
}

// raftServer is this server as a voter in a raft configuration.
func (s *Server) raftServer() raft.Server {
	return raft.Server{
		Suffrage: raft.Voter,
		ID:       raft.ServerID(s.nodeID),
		Address:  raft.ServerAddress(s.advertise),
	}
}

// raftConfiguration returns the latest raft configuration this server
// knows, empty before it joined or bootstrapped a cluster.
func (s *Server) raftConfiguration() (raft.Configuration, error) {
	f := s.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return raft.Configuration{}, err
	}
	return f.Configuration(), nil
}

// bootstrapWith bootstraps a new cluster of members. Every server that
// bootstraps the same cluster uses the same sorted configuration, so their
// first log entries agree.
func (s *Server) bootstrapWith(members []Member) error {
	servers := make([]raft.Server, 0, len(members))
	for _, m := range members {
		servers = append(servers, raft.Server{
			Suffrage: raft.Voter,
			ID:       raft.ServerID(m.ID),
			Address:  raft.ServerAddress(m.RPCAddr),
		})
	}
	slices.SortFunc(servers, func(a, b raft.Server) int { return strings.Compare(string(a.ID), string(b.ID)) })
	err := s.raft.BootstrapCluster(raft.Configuration{Servers: servers}).Error()
	if errors.Is(err, raft.ErrCantBootstrap) {
		return nil // state appeared meanwhile: someone else's leader reached us
	}
	if err != nil {
		return fmt.Errorf("bootstrap cluster: %w", err)
	}
	s.logger.Info("bootstrapped cluster", "servers", len(servers))
	return nil
}

// shutdownRaft stops raft and closes its transport and stores.
func (s *Server) shutdownRaft() error {
	var errs []error
	if s.raft != nil {
		if err := s.raft.Shutdown().Error(); err != nil {
			errs = append(errs, fmt.Errorf("shut down raft: %w", err))
		}
	}
	if s.raftTransport != nil {
		s.raftTransport.CloseStreams()
		if err := s.raftTransport.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close raft transport: %w", err))
		}
	}
	if s.raftStores != nil && s.raftStores.closer != nil {
		if err := s.raftStores.closer.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close raft log: %w", err))
		}
	}
	return errors.Join(errs...)
}
