package cni

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/types"
	types100 "github.com/containernetworking/cni/pkg/types/100"

	"github.com/drover-io/drover/internal/netns"
	"github.com/drover-io/drover/structs"
)

// ifName is the allocation's interface in its namespace, as Nomad names it.
const ifName = "eth0"

// Manager sets up and tears down the network namespaces of a client's
// allocations.
type Manager struct {
	cfg Config
	cni *libcni.CNIConfig
}

// New returns a manager for cfg, with its state directory made.
func New(cfg Config) (*Manager, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(cfg.StateDir, "netns"), 0o700); err != nil {
		return nil, fmt.Errorf("create CNI state directory: %w", err)
	}
	return &Manager{
		cfg: cfg,
		cni: libcni.NewCNIConfigWithCacheDir(cfg.pluginDirs(), filepath.Join(cfg.StateDir, "cache"), nil),
	}, nil
}

// Request is what an allocation's network needs.
type Request struct {
	AllocID string
	// Mode is the group network's mode: bridge, none or cni/<name>.
	Mode  string
	Ports []structs.AllocatedPortMapping
	// Args are passed to a cni/<name> network's plugins as CNI_ARGS
	// (Nomad's NOMAD_REGION, NOMAD_NAMESPACE, NOMAD_JOB_ID,
	// NOMAD_GROUP_NAME, NOMAD_ALLOC_ID); a value with a ';' is left out.
	Args map[string]string
}

// Network is an allocation's namespace as set up.
type Network struct {
	// NetNSPath is where the namespace is pinned: what tasks enter.
	NetNSPath string
	// Status is the allocation's address in it (empty in mode none).
	Status structs.AllocNetworkStatus
}

// NetNSPath is where the allocation's namespace is pinned.
func (m *Manager) NetNSPath(allocID string) string {
	return filepath.Join(m.cfg.StateDir, "netns", allocID)
}

func (m *Manager) confPath(allocID string) string {
	return m.NetNSPath(allocID) + ".conflist"
}

// validAllocID: the ID names files; it comes from the servers, but a
// path is made of it only if it is a plain name.
func validAllocID(id string) error {
	if id == "" || len(id) > 64 || strings.ContainsAny(id, "/\\ \t\n") || id == "." || id == ".." || strings.HasSuffix(id, ".conflist") {
		return fmt.Errorf("allocation ID %q cannot name a network namespace", id)
	}
	return nil
}

// Setup makes the allocation's namespace and joins it to its network. For
// an allocation already set up (a restored one) it returns what was set
// up, and changes nothing.
func (m *Manager) Setup(ctx context.Context, req Request) (*Network, error) {
	if err := validAllocID(req.AllocID); err != nil {
		return nil, err
	}
	path := m.NetNSPath(req.AllocID)
	if netns.Exists(path) {
		if n, err := m.existing(req.AllocID); err == nil {
			return n, nil
		}
		// Half set up by an agent that died midway: start afresh.
		if err := m.Teardown(ctx, req.AllocID); err != nil {
			return nil, fmt.Errorf("clear half-made network namespace: %w", err)
		}
	}
	list, err := m.confList(req.Mode)
	if err != nil {
		return nil, err
	}
	if err := netns.Create(path); err != nil {
		return nil, err
	}
	n := &Network{NetNSPath: path}
	if list == nil {
		return n, nil
	}
	if err := os.WriteFile(m.confPath(req.AllocID), list.Bytes, 0o600); err != nil {
		_ = netns.Remove(path)
		return nil, fmt.Errorf("keep network configuration: %w", err)
	}
	res, err := m.cni.AddNetworkList(ctx, list, m.runtimeConf(req, path))
	if err != nil {
		// DEL undoes what the plugins that ran did.
		_ = m.Teardown(context.WithoutCancel(ctx), req.AllocID)
		return nil, fmt.Errorf("network %q: %w", list.Name, err)
	}
	n.Status, err = status(res)
	if err != nil {
		_ = m.Teardown(context.WithoutCancel(ctx), req.AllocID)
		return nil, fmt.Errorf("network %q: %w", list.Name, err)
	}
	return n, nil
}

// existing is the network of an allocation set up earlier.
func (m *Manager) existing(allocID string) (*Network, error) {
	path := m.NetNSPath(allocID)
	n := &Network{NetNSPath: path}
	b, err := os.ReadFile(m.confPath(allocID))
	if errors.Is(err, os.ErrNotExist) {
		return n, nil // mode none
	}
	if err != nil {
		return nil, err
	}
	list, err := libcni.ConfListFromBytes(b)
	if err != nil {
		return nil, err
	}
	res, err := m.cni.GetNetworkListCachedResult(list, &libcni.RuntimeConf{ContainerID: allocID, NetNS: path, IfName: ifName})
	if err != nil || res == nil {
		return nil, fmt.Errorf("no cached result for %s", allocID)
	}
	n.Status, err = status(res)
	return n, err
}

// confList is the network configuration of mode; nil for none.
func (m *Manager) confList(mode string) (*libcni.NetworkConfigList, error) {
	switch {
	case mode == structs.NetworkModeNone:
		return nil, nil
	case mode == structs.NetworkModeBridge:
		b, err := bridgeConfList(m.cfg)
		if err != nil {
			return nil, err
		}
		return libcni.ConfListFromBytes(b)
	case strings.HasPrefix(mode, structs.NetworkModeCNIPrefix):
		name := strings.TrimPrefix(mode, structs.NetworkModeCNIPrefix)
		list, err := libcni.LoadNetworkConf(m.cfg.ConfigDir, name)
		if err != nil {
			return nil, fmt.Errorf("CNI network %q in %s: %w", name, m.cfg.ConfigDir, err)
		}
		return list, nil
	}
	return nil, fmt.Errorf("network mode %q has no network namespace", mode)
}

func (m *Manager) runtimeConf(req Request, path string) *libcni.RuntimeConf {
	rt := &libcni.RuntimeConf{ContainerID: req.AllocID, NetNS: path, IfName: ifName}
	var mappings []map[string]any
	for _, p := range req.Ports {
		for _, proto := range []string{"tcp", "udp"} {
			pm := map[string]any{"hostPort": p.Value, "containerPort": p.To, "protocol": proto}
			if p.HostIP != "" {
				pm["hostIP"] = p.HostIP
			}
			mappings = append(mappings, pm)
		}
	}
	if len(mappings) > 0 {
		rt.CapabilityArgs = map[string]any{"portMappings": mappings}
	}
	if strings.HasPrefix(req.Mode, structs.NetworkModeCNIPrefix) {
		rt.Args = append(rt.Args, [2]string{"IgnoreUnknown", "true"})
		for _, k := range []string{"NOMAD_REGION", "NOMAD_NAMESPACE", "NOMAD_JOB_ID", "NOMAD_GROUP_NAME", "NOMAD_ALLOC_ID"} {
			if v, ok := req.Args[k]; ok && !strings.ContainsAny(v, ";=") {
				rt.Args = append(rt.Args, [2]string{k, v})
			}
		}
	}
	return rt
}

// status is the allocation's network status from the plugins' result:
// the first IPv4 address on the namespace's interface, and the DNS the
// plugins gave, as Nomad reports them.
func status(res types.Result) (structs.AllocNetworkStatus, error) {
	if res == nil {
		return structs.AllocNetworkStatus{}, errors.New("plugins returned no result")
	}
	cur, err := types100.NewResultFromResult(res)
	if err != nil {
		return structs.AllocNetworkStatus{}, fmt.Errorf("read plugins' result: %w", err)
	}
	st := structs.AllocNetworkStatus{InterfaceName: ifName}
	for _, ip := range cur.IPs {
		a, ok := netip.AddrFromSlice(ip.Address.IP)
		if !ok {
			continue
		}
		a = a.Unmap()
		if a.Is4() && st.Address == "" {
			st.Address = a.String()
		} else if a.Is6() && st.AddressIPv6 == "" {
			st.AddressIPv6 = a.String()
		}
	}
	if st.Address == "" && st.AddressIPv6 == "" {
		return st, errors.New("plugins gave the allocation no address")
	}
	if len(cur.DNS.Nameservers)+len(cur.DNS.Search)+len(cur.DNS.Options) > 0 {
		st.DNS = &structs.DNSConfig{Servers: cur.DNS.Nameservers, Searches: cur.DNS.Search, Options: cur.DNS.Options}
	}
	return st, nil
}

// Teardown runs the DEL of every plugin of the allocation's network and
// unpins its namespace. Nothing set up is no error.
func (m *Manager) Teardown(ctx context.Context, allocID string) error {
	if err := validAllocID(allocID); err != nil {
		return err
	}
	path := m.NetNSPath(allocID)
	var errs []error
	b, err := os.ReadFile(m.confPath(allocID))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		errs = append(errs, err)
	default:
		errs = append(errs, m.del(ctx, allocID, path, b))
	}
	if err := netns.Remove(path); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("tear down network of %s: %w", allocID, err)
	}
	if err := os.Remove(m.confPath(allocID)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("tear down network of %s: %w", allocID, err)
	}
	return nil
}

// del runs the plugins' DEL with the configuration and runtime arguments
// of the ADD.
func (m *Manager) del(ctx context.Context, allocID, path string, conf []byte) error {
	list, err := libcni.ConfListFromBytes(conf)
	if err != nil {
		return fmt.Errorf("read kept network configuration: %w", err)
	}
	rt := &libcni.RuntimeConf{ContainerID: allocID, NetNS: path, IfName: ifName}
	if _, cached, err := m.cni.GetNetworkListCachedConfig(list, rt); err == nil && cached != nil {
		rt = cached
	}
	// A namespace already gone is passed as none: the plugins then
	// release what they hold on the host side.
	if !netns.Exists(path) {
		rt.NetNS = ""
	}
	if err := m.cni.DelNetworkList(ctx, list, rt); err != nil {
		return fmt.Errorf("network %q: %w", list.Name, err)
	}
	return nil
}

// Leftovers lists the allocations that have a namespace or a kept
// network configuration here.
func (m *Manager) Leftovers() ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(m.cfg.StateDir, "netns"))
	if err != nil {
		return nil, fmt.Errorf("list network namespaces: %w", err)
	}
	seen := map[string]bool{}
	var ids []string
	for _, e := range entries {
		id := strings.TrimSuffix(e.Name(), ".conflist")
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, nil
}
