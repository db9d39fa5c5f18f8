package client

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/client/allocrunner"
	"github.com/drover-io/drover/structs"
)

// ServiceRegistrar is the servers' side of service registration, as the
// client sends it (see ServerConn, which implementations also satisfy).
type ServiceRegistrar interface {
	// RegisterServices stores registrations of the node's allocations'
	// services, replacing those of the same IDs.
	RegisterServices(ctx context.Context, node NodeIdentity, regs []*structs.ServiceRegistration) error
	// DeregisterServices removes every registration of the node's
	// allocations allocIDs.
	DeregisterServices(ctx context.Context, node NodeIdentity, allocIDs []string) error
}

// serviceSync keeps the servers' registrations of each allocation's
// services in step with its client state, which alloc runners report:
// it works out what each allocation should have registered and sends the
// change from its own goroutine, retrying what failed, so that a slow
// server never holds up a runner.
type serviceSync struct {
	logger   hclog.Logger
	conn     ServiceRegistrar
	identity func() NodeIdentity
	// node is the node as registered, set once the client has it.
	node func() *structs.Node

	mu sync.Mutex
	// want and have are, per allocation, what should be registered and
	// what the servers took last.
	want map[string][]*structs.ServiceRegistration
	have map[string][]*structs.ServiceRegistration
	wake chan struct{}
}

func newServiceSync(logger hclog.Logger, conn ServiceRegistrar, identity func() NodeIdentity, node func() *structs.Node) *serviceSync {
	return &serviceSync{
		logger: logger, conn: conn, identity: identity, node: node,
		want: make(map[string][]*structs.ServiceRegistration),
		have: make(map[string][]*structs.ServiceRegistration),
		wake: make(chan struct{}, 1),
	}
}

// AllocStateUpdated implements allocrunner.AllocStateHandler.
func (s *serviceSync) AllocStateUpdated(alloc *structs.Allocation) {
	if !hasServices(alloc) {
		return // nothing to register, ever
	}
	want := wantedServices(alloc, s.node())
	s.mu.Lock()
	defer s.mu.Unlock()
	// An allocation with nothing wanted is still sent once: after an
	// agent restart, what an earlier client registered is not in have.
	s.want[alloc.ID] = want
	signal(s.wake)
}

// run sends the changes until ctx ends.
func (s *serviceSync) run(ctx context.Context) {
	retry := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		}
		if err := s.flush(ctx); err != nil {
			retry = min(max(2*retry, batchRetryMin), batchRetryMax)
			s.logger.Warn("failed to update service registrations; retrying", "error", err, "retry_in", retry)
			signal(s.wake)
			if !sleepCtx(ctx, retry) {
				return
			}
			continue
		}
		retry = 0
	}
}

// flush sends, for each allocation whose wanted registrations changed,
// the change: the removal of all it had when any of them goes (the
// servers remove by allocation), then what it should have. An allocation
// this client has sent nothing for yet (a new one, or one an earlier
// agent registered) is cleared first.
func (s *serviceSync) flush(ctx context.Context) error {
	s.mu.Lock()
	pending := make(map[string][]*structs.ServiceRegistration, len(s.want))
	for id, want := range s.want {
		pending[id] = want
	}
	clear(s.want)
	type known struct {
		regs []*structs.ServiceRegistration
		ok   bool
	}
	have := make(map[string]known, len(pending))
	for id := range pending {
		regs, ok := s.have[id]
		have[id] = known{regs, ok}
	}
	s.mu.Unlock()

	for id, want := range pending {
		if err := s.apply(ctx, id, have[id].regs, have[id].ok, want); err != nil {
			s.requeue(pending)
			return err
		}
		s.mu.Lock()
		s.have[id] = want
		delete(pending, id)
		s.mu.Unlock()
	}
	return nil
}

// forget drops what is known of an allocation the client is done with.
func (s *serviceSync) forget(allocID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.have, allocID)
	delete(s.want, allocID)
}

func (s *serviceSync) apply(ctx context.Context, allocID string, have []*structs.ServiceRegistration, known bool, want []*structs.ServiceRegistration) error {
	if known && slices.EqualFunc(have, want, (*structs.ServiceRegistration).Equal) {
		return nil
	}
	if !known || slices.ContainsFunc(have, func(r *structs.ServiceRegistration) bool { return !containsReg(want, r) }) {
		if err := s.conn.DeregisterServices(ctx, s.identity(), []string{allocID}); err != nil {
			return err
		}
	}
	if len(want) == 0 {
		return nil
	}
	return s.conn.RegisterServices(ctx, s.identity(), want)
}

func containsReg(regs []*structs.ServiceRegistration, r *structs.ServiceRegistration) bool {
	return slices.ContainsFunc(regs, r.Equal)
}

// requeue puts back what was not sent, under any newer wanted state.
func (s *serviceSync) requeue(pending map[string][]*structs.ServiceRegistration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, want := range pending {
		if _, newer := s.want[id]; !newer {
			s.want[id] = want
		}
	}
}

// stateHandlers tells each of its handlers of every state change.
type stateHandlers []allocrunner.AllocStateHandler

func (hs stateHandlers) AllocStateUpdated(alloc *structs.Allocation) {
	for _, h := range hs {
		h.AllocStateUpdated(alloc)
	}
}
