package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/drover-io/drover/client"
	"github.com/drover-io/drover/client/cni"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/docker"
	execdriver "github.com/drover-io/drover/drivers/exec"
	"github.com/drover-io/drover/drivers/exec2"
	"github.com/drover-io/drover/drivers/java"
	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/drivers/rawexec"
	"github.com/drover-io/drover/nomad"
)

// setupClient starts the client half: its drivers, its way to the servers
// (this agent's own server when it runs one, else RPC to client.servers)
// and the client itself.
func (a *Agent) setupClient() error {
	stateDir, allocDir, err := a.clientDirs()
	if err != nil {
		return err
	}
	drv, err := a.clientDrivers(allocDir)
	if err != nil {
		return err
	}
	conn, err := a.clientServerConn()
	if err != nil {
		return err
	}
	cfg := a.config
	c, err := client.New(&client.Config{
		Logger:      a.logger,
		NodeName:    cfg.NodeName,
		Datacenter:  cfg.Datacenter,
		NodeClass:   cfg.Client.NodeClass,
		NodePool:    cfg.Client.NodePool,
		Meta:        cfg.Client.Meta,
		HostVolumes: cfg.Client.HostVolumes,
		HTTPAddr:    a.httpAdvertise(),
		HTTPS:       cfg.TLS.HTTP,
		StateDir:    stateDir,
		AllocDir:    allocDir,
		Drivers:     drv,
		Artifact:    &cfg.Client.Artifact,
		Servers:     conn,
		Network: client.NetworkConfig{
			Interface:      cfg.Client.Network.Interface,
			MinDynamicPort: cfg.Client.Network.MinDynamicPort,
			MaxDynamicPort: cfg.Client.Network.MaxDynamicPort,
			Reserved:       cfg.Client.Network.Reserved.NodeReserved(),
		},
		CNI: cni.Config{
			PluginPath:   cfg.Client.Network.CNIPath,
			ConfigDir:    cfg.Client.Network.CNIConfigDir,
			BridgeName:   cfg.Client.Network.BridgeName,
			BridgeSubnet: cfg.Client.Network.BridgeSubnet,
		},
		// Without a state dir nothing could re-attach to the tasks, so
		// they stop with the agent.
		DestroyOnShutdown: stateDir == "",
		MetricsInterval:   cfg.Telemetry.CollectionInterval,

		GCInterval:            cfg.Client.GCInterval,
		GCMaxAllocs:           cfg.Client.GCMaxAllocs,
		GCDiskUsageThreshold:  cfg.Client.GCDiskUsageThreshold,
		GCInodeUsageThreshold: cfg.Client.GCInodeUsageThreshold,
		GCParallelDestroys:    cfg.Client.GCParallelDestroys,

		PublishNodeMetrics:       cfg.Telemetry.PublishNodeMetrics,
		PublishAllocationMetrics: cfg.Telemetry.PublishAllocationMetrics,
	})
	if err != nil {
		if rc, ok := conn.(*rpcServerConn); ok {
			rc.Close()
		}
		return fmt.Errorf("start client: %w", err)
	}
	a.client = c
	a.clientConn = conn
	return nil
}

// clientDirs settles where the client keeps its state and its
// allocations: the configured directories, else under the data dir. An
// agent without a data dir (dev mode) keeps its state in memory and its
// allocations in a temporary directory that goes away with it.
func (a *Agent) clientDirs() (stateDir, allocDir string, err error) {
	c := a.config
	stateDir, allocDir = c.Client.StateDir, c.Client.AllocDir
	if c.DataDir != "" {
		if stateDir == "" {
			stateDir = filepath.Join(c.DataDir, "client")
		}
		if allocDir == "" {
			allocDir = filepath.Join(c.DataDir, "alloc")
		}
	}
	if allocDir == "" {
		if allocDir, err = os.MkdirTemp("", "DroverClient"); err != nil {
			return "", "", fmt.Errorf("create temporary alloc dir: %w", err)
		}
		a.tempAllocDir = allocDir
	}
	for _, dir := range []*string{&stateDir, &allocDir} {
		if *dir == "" {
			continue
		}
		if *dir, err = filepath.Abs(*dir); err != nil {
			return "", "", fmt.Errorf("client directory: %w", err)
		}
	}
	return stateDir, allocDir, nil
}

// dockerMountDirName is the directory, in the client's alloc dir, where
// the docker driver mounts the allocation paths it hands the engine.
const dockerMountDirName = ".docker-mounts"

// clientServerConn returns the client's way to the servers.
func (a *Agent) clientServerConn() (client.ServerConn, error) {
	if a.server != nil {
		return &localServerConn{srv: a.server}, nil
	}
	return newRPCServerConn(a.config.Client.Servers, nomad.RPCClientConfig{
		RegistrationSecret: a.config.RegistrationSecret(),
		TLS:                a.rpcTLS(),
		Region:             a.config.Region,
	})
}

// clientDrivers builds the task drivers the client offers: raw_exec
// (enabled by its plugin block, the legacy driver.raw_exec.enable option,
// or dev mode), exec (unless its plugin block sets enabled = false; it is
// healthy on Linux with cgroups where the agent runs as root), java (as
// exec, where `java -version` answers too), exec2 (as exec, where the
// kernel has Landlock), docker (unless its plugin block sets enabled = false; it
// is healthy where an engine answers) and the mock driver, when its plugin
// block enables it or in dev mode unless its plugin block sets enabled =
// false (Nomad's dev builds have it there too, and its API tests use it).
// allocDir is the client's alloc dir, where the docker driver keeps the
// mounts it hands the engine, beside the allocations.
func (a *Agent) clientDrivers(allocDir string) (*drivers.Catalog, error) {
	raw := rawexec.New(a.logger, rawexec.Config{
		Enabled:       a.config.DevMode || a.pluginEnabled(rawexec.DriverName) || a.optionEnabled("driver.raw_exec.enable"),
		SupervisorCmd: a.config.TaskSupervisorCmd,
	})
	list := []drivers.Driver{raw}
	if !a.pluginDisabled(execdriver.DriverName) {
		cfg, err := a.config.ExecPluginConfig()
		if err != nil {
			return nil, err
		}
		list = append(list, execdriver.New(a.logger, execdriver.Config{Plugin: cfg, SupervisorCmd: a.config.TaskSupervisorCmd}))
	}
	if !a.pluginDisabled(java.DriverName) {
		cfg, err := a.config.JavaPluginConfig()
		if err != nil {
			return nil, err
		}
		list = append(list, java.New(a.logger, java.Config{Plugin: cfg, SupervisorCmd: a.config.TaskSupervisorCmd}))
	}
	if block := a.config.Exec2PluginBlock(); block == "" || !a.pluginDisabled(block) {
		cfg, err := a.config.Exec2PluginConfig()
		if err != nil {
			return nil, err
		}
		list = append(list, exec2.New(a.logger, exec2.Config{Plugin: cfg, SupervisorCmd: a.config.TaskSupervisorCmd}))
	}
	if !a.pluginDisabled(docker.DriverName) {
		cfg, err := a.config.DockerPluginConfig()
		if err != nil {
			return nil, err
		}
		// No task can write the alloc dir itself, only what is beneath
		// each allocation's directory; a name that starts with a dot is
		// no allocation's.
		cfg.MountDir = filepath.Join(allocDir, dockerMountDirName)
		list = append(list, docker.New(a.logger, cfg))
	}
	if a.pluginEnabled(mock.DriverName) || (a.config.DevMode && !a.pluginDisabled(mock.DriverName)) {
		list = append(list, mock.New(a.logger))
	}
	return drivers.NewCatalog(list...), nil
}

// pluginDisabled reports whether the named plugin block sets
// enabled = false.
func (a *Agent) pluginDisabled(name string) bool {
	p, ok := a.config.Plugins[name]
	if !ok || p == nil || p.Config["enabled"] == nil {
		return false
	}
	return !a.pluginEnabled(name)
}

// pluginEnabled reports whether the named plugin block sets enabled = true.
func (a *Agent) pluginEnabled(name string) bool {
	p, ok := a.config.Plugins[name]
	if !ok || p == nil {
		return false
	}
	switch v := p.Config["enabled"].(type) {
	case bool:
		return v
	case string:
		b, _ := strconv.ParseBool(v)
		return b
	}
	return false
}

// optionEnabled reports whether a client option is set to a true value.
func (a *Agent) optionEnabled(key string) bool {
	b, _ := strconv.ParseBool(a.config.Client.Options[key])
	return b
}
