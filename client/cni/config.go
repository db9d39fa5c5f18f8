package cni

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
)

// Nomad's defaults for the client's CNI settings, but the bridge's name
// (see the package doc).
const (
	DefaultPluginPath   = "/opt/cni/bin:/usr/lib/cni"
	DefaultConfigDir    = "/opt/cni/config"
	DefaultBridgeName   = "drover"
	DefaultBridgeSubnet = "172.26.64.0/20"
	// AdminChain is the firewall plugin's admin chain of the bridge
	// network.
	AdminChain = "DROVER-ADMIN"
)

// Config is the client's CNI configuration.
type Config struct {
	// PluginPath lists the directories the plugins are looked up in,
	// separated by ':' (cni_path).
	PluginPath string
	// ConfigDir holds the networks of "cni/<name>" modes (cni_config_dir).
	ConfigDir string
	// BridgeName and BridgeSubnet are the bridge network's
	// (bridge_network_name, bridge_network_subnet).
	BridgeName   string
	BridgeSubnet string
	// StateDir is where the namespaces are pinned and the plugins'
	// results cached: a directory of the client's own.
	StateDir string
}

// withDefaults fills what is empty and checks the rest.
func (c Config) withDefaults() (Config, error) {
	if c.PluginPath == "" {
		c.PluginPath = DefaultPluginPath
	}
	if c.ConfigDir == "" {
		c.ConfigDir = DefaultConfigDir
	}
	if c.BridgeName == "" {
		c.BridgeName = DefaultBridgeName
	}
	if c.BridgeSubnet == "" {
		c.BridgeSubnet = DefaultBridgeSubnet
	}
	// A Linux interface name: at most 15 bytes, no '/' or space.
	if len(c.BridgeName) > 15 || strings.ContainsAny(c.BridgeName, "/ \t\n:") {
		return c, fmt.Errorf("bridge_network_name %q is no interface name (at most 15 characters, no '/', ':' or space)", c.BridgeName)
	}
	p, err := netip.ParsePrefix(c.BridgeSubnet)
	if err != nil || !p.Addr().Is4() || p.Bits() > 30 {
		return c, fmt.Errorf("bridge_network_subnet %q is no IPv4 subnet of at least 4 addresses", c.BridgeSubnet)
	}
	c.BridgeSubnet = p.Masked().String()
	if c.StateDir == "" || !filepath.IsAbs(c.StateDir) {
		return c, fmt.Errorf("CNI state directory %q must be an absolute path", c.StateDir)
	}
	return c, nil
}

// Validate checks the settings an operator writes: the bridge's name and
// subnet.
func (c Config) Validate() error {
	c.StateDir = "/"
	_, err := c.withDefaults()
	return err
}

// pluginDirs splits PluginPath.
func (c Config) pluginDirs() []string {
	var dirs []string
	for _, d := range strings.Split(c.PluginPath, ":") {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return dirs
}
