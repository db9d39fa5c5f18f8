package docker

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/drover-io/drover/drivers"
)

// Where a task's directories appear inside its container, as in Nomad.
const (
	containerAllocDir   = "/alloc"
	containerLocalDir   = "/local"
	containerSecretsDir = "/secrets"
)

// Labels the driver puts on its containers: Nomad's, so that tools that
// read them keep working, and the run's own ID.
const (
	labelAllocID   = "com.hashicorp.nomad.alloc_id"
	labelJobName   = "com.hashicorp.nomad.job_name"
	labelGroupName = "com.hashicorp.nomad.task_group_name"
	labelTaskName  = "com.hashicorp.nomad.task_name"
	labelNamespace = "com.hashicorp.nomad.namespace"
	labelTaskID    = "io.drover.task_id"
)

// Log limits when the task gives none, as in Nomad's log block.
const (
	defaultLogMaxFiles      = 10
	defaultLogMaxFileSizeMB = 10
)

// containerName is the run's container name: the task, its allocation
// and a digest of the run's ID, so that each run has its own and the
// driver can find it again by name.
func containerName(cfg *drivers.TaskConfig) string {
	sum := sha256.Sum256([]byte(cfg.ID))
	name := cfg.Name + "-" + cfg.AllocID + "-" + hex.EncodeToString(sum[:4])
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			return r
		}
		return '_'
	}, name)
}

// createOptions turns a task into the engine's create request, and the
// bind mounts its container gets, which the driver prepares at the start
// (see mounter). A task asking for what the plugin configuration does not
// allow is refused.
func createOptions(cfg *drivers.TaskConfig, conf *taskConfig, plugin *PluginConfig) (client.ContainerCreateOptions, []bindSpec, error) {
	paths := newPathMap(cfg)
	ccfg := &container.Config{
		Image:      conf.Image,
		Env:        containerEnv(cfg.Env),
		WorkingDir: paths.replace(conf.WorkDir),
		User:       cfg.User,
		Labels:     containerLabels(cfg, conf),
	}
	if len(conf.Entrypoint) > 0 {
		ccfg.Entrypoint = paths.replaceAll(conf.Entrypoint)
	}
	if conf.Command != "" {
		ccfg.Cmd = append([]string{paths.replace(conf.Command)}, paths.replaceAll(conf.Args)...)
	} else if len(conf.Args) > 0 {
		ccfg.Cmd = paths.replaceAll(conf.Args)
	}

	host := &container.HostConfig{
		NetworkMode: container.NetworkMode(conf.NetworkMode),
		Privileged:  conf.Privileged,
		CapAdd:      conf.CapAdd,
		CapDrop:     conf.CapDrop,
		ShmSize:     conf.ShmSize,
		LogConfig:   engineLogConfig(cfg),
		Resources:   containerResources(cfg, conf),
	}
	if conf.Init {
		host.Init = &conf.Init
	}
	if err := checkPolicy(conf, plugin); err != nil {
		return client.ContainerCreateOptions{}, nil, err
	}
	if err := publishPorts(cfg, conf.Ports, conf.PortMap, ccfg, host); err != nil {
		return client.ContainerCreateOptions{}, nil, err
	}
	if err := applyDNS(cfg.DNS, host); err != nil {
		return client.ContainerCreateOptions{}, nil, err
	}
	netcfg, err := applyContainerKeys(ccfg, host, conf)
	if err != nil {
		return client.ContainerCreateOptions{}, nil, err
	}
	binds, err := containerBinds(cfg, conf, plugin.VolumesEnabled)
	if err != nil {
		return client.ContainerCreateOptions{}, nil, err
	}
	volumes, err := hostVolumeBinds(cfg)
	if err != nil {
		return client.ContainerCreateOptions{}, nil, err
	}
	binds = append(binds, volumes...)
	return client.ContainerCreateOptions{Name: containerName(cfg), Config: ccfg, HostConfig: host, NetworkingConfig: netcfg}, binds, nil
}

// containerEnv is the task's environment with its directories as the
// container sees them.
func containerEnv(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		switch k {
		case "NOMAD_ALLOC_DIR":
			v = containerAllocDir
		case "NOMAD_TASK_DIR":
			v = containerLocalDir
		case "NOMAD_SECRETS_DIR":
			v = containerSecretsDir
		}
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

func containerLabels(cfg *drivers.TaskConfig, conf *taskConfig) map[string]string {
	labels := make(map[string]string, len(conf.Labels)+6)
	for k, v := range conf.Labels {
		labels[k] = v
	}
	labels[labelAllocID] = cfg.AllocID
	labels[labelJobName] = cfg.JobName
	labels[labelGroupName] = cfg.TaskGroupName
	labels[labelTaskName] = cfg.Name
	labels[labelNamespace] = cfg.Namespace
	labels[labelTaskID] = cfg.ID
	return labels
}

// containerResources turns the task's resources into engine limits:
// memory as a hard limit without swap (memory_max, if set, is the hard
// limit and memory the reservation), CPU as shares of its MHz.
func containerResources(cfg *drivers.TaskConfig, conf *taskConfig) container.Resources {
	var res container.Resources
	res.Ulimits = conf.Ulimits
	r := cfg.Resources
	if r == nil {
		return res
	}
	if r.MemoryMB > 0 {
		res.Memory = int64(r.MemoryMB) << 20
		if r.MemoryMaxMB > r.MemoryMB {
			res.MemoryReservation = res.Memory
			res.Memory = int64(r.MemoryMaxMB) << 20
		}
		res.MemorySwap = res.Memory
	}
	if r.CPU > 0 {
		// The engine's minimum share is 2.
		res.CPUShares = int64(max(r.CPU, 2))
	}
	return res
}

// engineLogConfig keeps the engine's own copy of the output small: the
// driver streams it into the allocation's log files, and the engine's
// copy only bridges an agent restart.
func engineLogConfig(cfg *drivers.TaskConfig) container.LogConfig {
	size := cfg.LogMaxFileSizeMB
	if size <= 0 {
		size = defaultLogMaxFileSizeMB
	}
	return container.LogConfig{
		Type:   "json-file",
		Config: map[string]string{"max-size": strconv.Itoa(size) + "m", "max-file": "2"},
	}
}

// pathMap rewrites host paths of the task's directories, which ${...}
// interpolation put into the config, into their paths in the container.
type pathMap struct{ from, to []string }

func newPathMap(cfg *drivers.TaskConfig) pathMap {
	var m pathMap
	add := func(host, ctr string) {
		if host != "" {
			m.from, m.to = append(m.from, host), append(m.to, ctr)
		}
	}
	if cfg.TaskDir != "" {
		add(filepath.Join(cfg.TaskDir, "local"), containerLocalDir)
		add(filepath.Join(cfg.TaskDir, "secrets"), containerSecretsDir)
	}
	add(cfg.AllocDir, containerAllocDir)
	return m
}

func (m pathMap) replace(s string) string {
	for i, from := range m.from {
		s = strings.ReplaceAll(s, from, m.to[i])
	}
	return s
}

func (m pathMap) replaceAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = m.replace(s)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
