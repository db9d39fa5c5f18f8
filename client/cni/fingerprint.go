package cni

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/containernetworking/cni/libcni"

	"github.com/drover-io/drover/structs"
)

// Modes are the network modes this client can give an allocation, other
// than host: none (a namespace of its own needs Linux and root), bridge
// where its plugins and iptables are found, and cni/<name> for each
// network of the config directory whose plugins are found. A mode missing
// here is one the scheduler does not place on the node.
func (m *Manager) Modes() []string {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		return nil
	}
	modes := []string{structs.NetworkModeNone}
	if m.havePlugins(bridgePlugins) {
		if _, err := exec.LookPath("iptables"); err == nil {
			modes = append(modes, structs.NetworkModeBridge)
		}
	}
	files, _ := libcni.ConfFiles(m.cfg.ConfigDir, []string{".conf", ".conflist", ".json"})
	slices.Sort(files)
	for _, f := range files {
		list, err := libcni.NetworkConfFromFile(f)
		if err != nil || list.Name == "" {
			continue
		}
		var types []string
		for _, p := range list.Plugins {
			types = append(types, p.Network.Type)
		}
		mode := structs.NetworkModeCNIPrefix + list.Name
		if m.havePlugins(types) && !slices.Contains(modes, mode) {
			modes = append(modes, mode)
		}
	}
	return modes
}

// havePlugins reports whether every named plugin is an executable file in
// a plugin directory.
func (m *Manager) havePlugins(names []string) bool {
	for _, name := range names {
		if name == "" || strings.ContainsAny(name, "/\\") || !m.havePlugin(name) {
			return false
		}
	}
	return true
}

func (m *Manager) havePlugin(name string) bool {
	for _, dir := range m.cfg.pluginDirs() {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}
