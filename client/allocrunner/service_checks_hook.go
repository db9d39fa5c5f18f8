package allocrunner

import (
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/client/servicecheck"
	"github.com/drover-io/drover/internal/netguard"
	"github.com/drover-io/drover/structs"
)

// serviceChecksHook runs the checks of the group's services that belong
// to no task (a check or service naming a task runs with that task's
// runs, in its task runner): from Prerun, before the tasks start, until
// the tasks are dead or the agent stops. Without a task, such a check
// has nothing to restart and no task to run a script in, which
// validation holds to.
type serviceChecksHook struct {
	logger hclog.Logger
	alloc  *structs.Allocation
	node   *structs.Node
	// guard is the client's address policy (servicecheck.Owner.Guard).
	guard *netguard.Policy

	mu  sync.Mutex
	set *servicecheck.Set
}

func newServiceChecksHook(alloc *structs.Allocation, node *structs.Node, guard *netguard.Policy, logger hclog.Logger) *serviceChecksHook {
	return &serviceChecksHook{logger: logger, alloc: alloc, node: node, guard: guard}
}

func (h *serviceChecksHook) Name() string { return "service_checks" }

// Prerun starts the group's checks, if it has any.
func (h *serviceChecksHook) Prerun() error {
	checks := servicecheck.Build(servicecheck.Owner{
		Alloc: h.alloc, Env: taskrunner.ServiceInterpolator(h.alloc, nil, h.node), Guard: h.guard,
	})
	if len(checks) == 0 {
		return nil
	}
	set := servicecheck.NewSet(checks, nil, h.logger)
	h.mu.Lock()
	h.set = set
	h.mu.Unlock()
	set.Start()
	return nil
}

// Postrun stops the checks: the tasks are dead.
func (h *serviceChecksHook) Postrun() error {
	h.stop()
	return nil
}

// Shutdown stops the checks; the next agent starts them again.
func (h *serviceChecksHook) Shutdown() { h.stop() }

// Destroy stops the checks, if Postrun has not.
func (h *serviceChecksHook) Destroy() error {
	h.stop()
	return nil
}

func (h *serviceChecksHook) stop() {
	h.mu.Lock()
	set := h.set
	h.set = nil
	h.mu.Unlock()
	if set != nil {
		set.Stop()
	}
}

func (h *serviceChecksHook) statuses() []servicecheck.Status {
	h.mu.Lock()
	set := h.set
	h.mu.Unlock()
	if set == nil {
		return nil
	}
	return set.Statuses()
}

// CheckStatuses returns the latest status of each running check of the
// allocation's services, the group's and its tasks', by check ID.
func (ar *AllocRunner) CheckStatuses() map[string]servicecheck.Status {
	out := map[string]servicecheck.Status{}
	for _, hook := range ar.hooks {
		if h, ok := hook.(*serviceChecksHook); ok {
			for _, s := range h.statuses() {
				out[s.ID] = s
			}
		}
	}
	for _, e := range ar.tasks {
		for _, s := range e.runner.CheckStatuses() {
			out[s.ID] = s
		}
	}
	return out
}
