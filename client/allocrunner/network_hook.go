package allocrunner

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/client/cni"
	"github.com/drover-io/drover/structs"
)

// networkTimeout bounds one setup or teardown: the plugins are processes
// that must not hold an allocation up for ever.
const networkTimeout = 2 * time.Minute

// NetworkManager makes and removes allocations' network namespaces: the
// client's cni.Manager.
type NetworkManager interface {
	Setup(ctx context.Context, req cni.Request) (*cni.Network, error)
	Teardown(ctx context.Context, allocID string) error
}

// networkHook gives the group the network namespace its network block's
// mode asks for, before any task starts, and removes it once every task
// is dead. A restored runner gets back the namespace its tasks run in.
type networkHook struct {
	alloc  *structs.Allocation
	mgr    NetworkManager
	set    func(*taskrunner.NetworkIsolation)
	logger hclog.Logger
}

func newNetworkHook(alloc *structs.Allocation, mgr NetworkManager, set func(*taskrunner.NetworkIsolation), logger hclog.Logger) *networkHook {
	return &networkHook{alloc: alloc, mgr: mgr, set: set, logger: logger}
}

func (h *networkHook) Name() string { return "network" }

// mode is the group's network mode, and whether it has a namespace.
func (h *networkHook) mode() (string, bool) {
	tg := h.alloc.LookupTaskGroup()
	if tg == nil {
		return structs.NetworkModeHost, false
	}
	mode := tg.NetworkMode()
	return mode, structs.HasNamespace(mode)
}

func (h *networkHook) Prerun() error {
	mode, ok := h.mode()
	if !ok {
		return nil
	}
	if h.mgr == nil {
		return fmt.Errorf("network mode %q: this client makes no network namespaces", mode)
	}
	req := cni.Request{AllocID: h.alloc.ID, Mode: mode, Ports: h.alloc.PortMappings(), Args: map[string]string{
		"NOMAD_NAMESPACE":  h.alloc.Namespace,
		"NOMAD_JOB_ID":     h.alloc.JobID,
		"NOMAD_GROUP_NAME": h.alloc.TaskGroup,
		"NOMAD_ALLOC_ID":   h.alloc.ID,
	}}
	if h.alloc.Job != nil {
		req.Args["NOMAD_REGION"] = h.alloc.Job.Region
	}
	ctx, cancel := context.WithTimeout(context.Background(), networkTimeout)
	defer cancel()
	n, err := h.mgr.Setup(ctx, req)
	if err != nil {
		return fmt.Errorf("network mode %q: %w", mode, err)
	}
	iso := &taskrunner.NetworkIsolation{NetNSPath: n.NetNSPath}
	if n.Status.Address != "" || n.Status.AddressIPv6 != "" {
		st := n.Status
		iso.Status = &st
	}
	h.set(iso)
	return nil
}

// Postrun removes the namespace: every task in it is dead.
func (h *networkHook) Postrun() error { return h.teardown() }

// Destroy removes it too, for a runner whose Postrun did not get to it.
func (h *networkHook) Destroy() error { return h.teardown() }

func (h *networkHook) teardown() error {
	if _, ok := h.mode(); !ok || h.mgr == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), networkTimeout)
	defer cancel()
	return h.mgr.Teardown(ctx, h.alloc.ID)
}
