package config

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func TestLoadConfig_ClientNetwork(t *testing.T) {
	cfg := DefaultConfig()
	must.Eq(t, ClientNetwork{MinDynamicPort: 20000, MaxDynamicPort: 32000}, cfg.Client.Network)

	path := writeFile(t, t.TempDir(), "agent.hcl", `
client {
  enabled           = true
  network_interface = "lo"
  min_dynamic_port  = 25000
  max_dynamic_port  = 26000
  reserved {
    cpu            = 500
    memory         = 512
    disk           = 1024
    reserved_ports = "22,80,8000-8100"
  }
}
`)
	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.SliceEmpty(t, cfg.Warnings)
	must.Eq(t, ClientNetwork{
		Interface: "lo", MinDynamicPort: 25000, MaxDynamicPort: 26000,
		Reserved: Reserved{CPU: 500, MemoryMB: 512, DiskMB: 1024, ReservedPorts: "22,80,8000-8100"},
	}, cfg.Client.Network)
	must.Eq(t, structs.NodeReservedResources{
		Cpu:      structs.NodeReservedCpuResources{CpuShares: 500},
		Memory:   structs.NodeReservedMemoryResources{MemoryMB: 512},
		Disk:     structs.NodeReservedDiskResources{DiskMB: 1024},
		Networks: structs.NodeReservedNetworkResources{ReservedHostPorts: "22,80,8000-8100"},
	}, cfg.Client.Network.Reserved.NodeReserved())
}

func TestLoadConfig_ClientCNI(t *testing.T) {
	path := writeFile(t, t.TempDir(), "agent.hcl", `
data_dir = "/tmp/x"
client {
  enabled               = true
  cni_path              = "/opt/cni/bin:/usr/lib/cni"
  cni_config_dir        = "/etc/cni/net.d"
  bridge_network_name   = "br0"
  bridge_network_subnet = "10.10.0.0/24"
}
`)
	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.SliceEmpty(t, cfg.Warnings)
	n := cfg.Client.Network
	must.Eq(t, "/opt/cni/bin:/usr/lib/cni", n.CNIPath)
	must.Eq(t, "/etc/cni/net.d", n.CNIConfigDir)
	must.Eq(t, "br0", n.BridgeName)
	must.Eq(t, "10.10.0.0/24", n.BridgeSubnet)
	must.NoError(t, cfg.Validate())
}

func TestLoadConfig_ClientNetworkErrors(t *testing.T) {
	for name, tc := range map[string]struct{ src, want string }{
		"range backwards": {"min_dynamic_port = 30000\nmax_dynamic_port = 29000", "client.min_dynamic_port and max_dynamic_port must be ports of 1 to 65535"},
		"port too big":    {"max_dynamic_port = 70000", "not 20000 and 70000"},
		"bad reserved":    {"reserved { reserved_ports = \"22,x\" }", `client.reserved.reserved_ports: port list "22,x": "x" is not a port`},
		"negative":        {"reserved { memory = -1 }", "client.reserved cpu, memory and disk must not be negative"},
		"cores":           {"reserved { cores = \"0-1\" }", "client.reserved.cores: Drover does not reserve cores"},
		"bridge name":     {"bridge_network_name = \"far-too-long-a-name\"", `client: bridge_network_name "far-too-long-a-name" is no interface name`},
		"bridge subnet":   {"bridge_network_subnet = \"fd00::/64\"", `client: bridge_network_subnet "fd00::/64" is no IPv4 subnet`},
	} {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "agent.hcl", "data_dir = \"/tmp/x\"\nclient {\n  enabled = true\n"+tc.src+"\n}\n")
			cfg, err := LoadConfig(DefaultConfig(), path)
			if err == nil {
				err = cfg.Validate()
			}
			must.ErrorContains(t, err, tc.want)
		})
	}
}
