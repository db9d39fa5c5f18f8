package taskrunner

import (
	"fmt"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// NetworkIsolation is the group's network namespace, as the alloc runner
// made it: tasks are started in it (drivers.TaskConfig.NetNSPath), and
// its status gives the NOMAD_ALLOC_* port variables.
type NetworkIsolation struct {
	NetNSPath string
	Status    *structs.AllocNetworkStatus
}

// checkNetNS refuses a task of a group with a network namespace on a
// driver that would start it on the host's network.
func checkNetNS(drv drivers.Driver, cfg *drivers.TaskConfig) error {
	if cfg.NetNSPath == "" {
		return nil
	}
	if j, ok := drv.(drivers.NetNSJoiner); ok && j.JoinsNetNS() {
		return nil
	}
	return fmt.Errorf("driver %q cannot start a task in the group's network namespace", cfg.Driver)
}

func (tr *TaskRunner) networkIsolation() *NetworkIsolation {
	if tr.network == nil {
		return nil
	}
	return tr.network()
}
