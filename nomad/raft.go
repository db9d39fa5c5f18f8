package nomad

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/raft"

	"github.com/drover-io/drover/nomad/membership"
	"github.com/drover-io/drover/nomad/raftstore"
)

const (
	// raftTransportMaxPool is how many outbound raft connections are kept
	// per peer.
	raftTransportMaxPool = 3

	// raftTransportTimeout bounds raft's network I/O.
	raftTransportTimeout = 10 * time.Second
)

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

	dir := ""
	if !s.config.inMemory() {
		dir = filepath.Join(s.config.serverDir(), "raft")
	}
	stores, err := raftstore.Open(dir, s.config.Logger)
	if err != nil {
		return err
	}
	s.raftStores = stores

	hasState, err := raft.HasExistingState(stores.Logs, stores.Stable, stores.Snaps)
	if err != nil {
		return fmt.Errorf("inspect raft state: %w", err)
	}
	if !hasState && s.config.BootstrapExpect <= 1 {
		cfg := raft.Configuration{Servers: []raft.Server{s.raftServer()}}
		if err := raft.BootstrapCluster(&rc, stores.Logs, stores.Stable, stores.Snaps, s.raftTransport, cfg); err != nil {
			return fmt.Errorf("bootstrap single-server cluster: %w", err)
		}
		s.logger.Info("bootstrapped a single-server cluster", "id", s.nodeID, "address", s.advertise)
	}

	r, err := raft.NewRaft(&rc, s.fsm, stores.Logs, stores.Stable, stores.Snaps, s.raftTransport)
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
func (s *Server) bootstrapWith(members []membership.Member) error {
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
	if s.raftStores != nil {
		if err := s.raftStores.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close raft log: %w", err))
		}
	}
	return errors.Join(errs...)
}
