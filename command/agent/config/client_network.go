package config

import (
	"errors"
	"fmt"

	"github.com/drover-io/drover/client/cni"
	"github.com/drover-io/drover/structs"
)

// ClientNetwork is what the client block says of the node's ports and
// reservations: network_interface, min_dynamic_port, max_dynamic_port and
// the reserved block.
type ClientNetwork struct {
	// Interface names the interface whose address ports are given on;
	// empty takes the agent's advertised address.
	Interface string
	// MinDynamicPort and MaxDynamicPort bound the dynamic ports.
	MinDynamicPort int
	MaxDynamicPort int
	// Reserved is kept back from allocations.
	Reserved Reserved
	// CNIPath, CNIConfigDir, BridgeName and BridgeSubnet are cni_path,
	// cni_config_dir, bridge_network_name and bridge_network_subnet; empty
	// takes the defaults of client/cni.
	CNIPath      string
	CNIConfigDir string
	BridgeName   string
	BridgeSubnet string
}

// Reserved is the client's reserved block.
type Reserved struct {
	CPU      int
	MemoryMB int
	DiskMB   int
	// ReservedPorts is Nomad's list of ports and ranges, "22,8000-8100".
	ReservedPorts string
}

// fileReserved is the reserved block as written.
type fileReserved struct {
	CPU           *int    `hcl:"cpu,optional"`
	MemoryMB      *int    `hcl:"memory,optional"`
	DiskMB        *int    `hcl:"disk,optional"`
	ReservedPorts *string `hcl:"reserved_ports,optional"`
	Cores         *string `hcl:"cores,optional"`
}

// applyNetwork sets the client's network settings written in the file.
func (fc *fileClient) applyNetwork(n *ClientNetwork) error {
	setString(&n.Interface, fc.NetworkInterface)
	setInt(&n.MinDynamicPort, fc.MinDynamicPort)
	setInt(&n.MaxDynamicPort, fc.MaxDynamicPort)
	setString(&n.CNIPath, fc.CNIPath)
	setString(&n.CNIConfigDir, fc.CNIConfigDir)
	setString(&n.BridgeName, fc.BridgeNetworkName)
	setString(&n.BridgeSubnet, fc.BridgeNetworkSubnet)
	r := fc.Reserved
	if r == nil {
		return nil
	}
	if r.Cores != nil {
		return errors.New("client.reserved.cores: Drover does not reserve cores; reserve CPU with cpu")
	}
	setInt(&n.Reserved.CPU, r.CPU)
	setInt(&n.Reserved.MemoryMB, r.MemoryMB)
	setInt(&n.Reserved.DiskMB, r.DiskMB)
	setString(&n.Reserved.ReservedPorts, r.ReservedPorts)
	return nil
}

func (n ClientNetwork) validate() []error {
	var errs []error
	lo, hi := n.MinDynamicPort, n.MaxDynamicPort
	if lo < 1 || lo > structs.MaxPort || hi < 1 || hi > structs.MaxPort || lo > hi {
		errs = append(errs, fmt.Errorf("client.min_dynamic_port and max_dynamic_port must be ports of 1 to %d, the first not above the second, not %d and %d", structs.MaxPort, lo, hi))
	}
	if _, err := structs.ParsePortSpec(n.Reserved.ReservedPorts); err != nil {
		errs = append(errs, fmt.Errorf("client.reserved.reserved_ports: %w", err))
	}
	bridge := cni.Config{BridgeName: n.BridgeName, BridgeSubnet: n.BridgeSubnet}
	if err := bridge.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("client: %w", err))
	}
	r := n.Reserved
	if r.CPU < 0 || r.MemoryMB < 0 || r.DiskMB < 0 {
		errs = append(errs, fmt.Errorf("client.reserved cpu, memory and disk must not be negative, not %d, %d and %d", r.CPU, r.MemoryMB, r.DiskMB))
	}
	return errs
}

// NodeReserved is the reserved block in the node's terms.
func (r Reserved) NodeReserved() structs.NodeReservedResources {
	return structs.NodeReservedResources{
		Cpu:      structs.NodeReservedCpuResources{CpuShares: uint64(max(r.CPU, 0))},
		Memory:   structs.NodeReservedMemoryResources{MemoryMB: uint64(max(r.MemoryMB, 0))},
		Disk:     structs.NodeReservedDiskResources{DiskMB: uint64(max(r.DiskMB, 0))},
		Networks: structs.NodeReservedNetworkResources{ReservedHostPorts: r.ReservedPorts},
	}
}
