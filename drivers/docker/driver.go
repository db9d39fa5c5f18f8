// Package docker is the docker task driver: each task run is a container
// of the local Docker Engine, driven through the engine's API with its
// official Go client.
//
// The image pull is part of the task's start, and so of its
// max_run_duration budget: a stop or the deadline during the pull
// abandons it. There is no process of Drover's per task: the container
// is the task, the engine's shim its parent. The agent streams the
// container's output into the allocation's log files and, after an agent
// restart, re-attaches to the container named in the task's handle.
package docker

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/moby/moby/client"

	"github.com/drover-io/drover/drivers"
)

// DriverName is the docker driver's name, as in Nomad.
const DriverName = "docker"

// handleVersion is the TaskHandle.Version this driver writes.
const handleVersion = 1

const (
	// fingerprintTimeout bounds the engine's answer at fingerprinting: a
	// node without an engine must not wait long to register.
	fingerprintTimeout = 5 * time.Second
	// apiTimeout bounds one short engine call (inspect, kill, remove).
	apiTimeout = 30 * time.Second
	// killWait bounds the wait for a container to exit after SIGKILL.
	killWait = 30 * time.Second
	// logDrainTimeout bounds the wait for the output of a container that
	// exited to reach the log files.
	logDrainTimeout = 5 * time.Second
	// stateDirName is the directory, inside the task directory, where the
	// driver keeps what it must find again after an agent restart (the
	// log positions). The container does not see it.
	stateDirName = ".docker"
)

// Driver is the docker driver.
type Driver struct {
	logger hclog.Logger
	cfg    *PluginConfig
	// client is nil when it could not be made from the configuration;
	// clientErr then says why.
	client    *client.Client
	clientErr error

	pulls  *puller
	images *imageGC
	tasks  drivers.TaskStore[*task]
	// mounts hands the engine the allocation paths containers bind; nil
	// when its directory could not be made, mountsErr then says why.
	mounts    *mounter
	mountsErr error
}

var (
	_ drivers.Driver       = (*Driver)(nil)
	_ drivers.StartAborter = (*Driver)(nil)
)

// New returns a docker driver; a nil cfg is DefaultPluginConfig. It does
// not contact the engine: Fingerprint tells whether one answers.
func New(logger hclog.Logger, cfg *PluginConfig) *Driver {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	if cfg == nil {
		cfg = DefaultPluginConfig()
	}
	if cfg.progressInterval <= 0 {
		cfg.progressInterval = defaultProgressInterval
	}
	d := &Driver{logger: logger.Named(DriverName), cfg: cfg}
	// The client negotiates the API version with the engine (20.10
	// speaks 1.41) on its first request.
	opts := []client.Opt{client.FromEnv}
	if cfg.Endpoint != "" {
		opts = append(opts, client.WithHost(cfg.Endpoint))
	}
	d.client, d.clientErr = client.New(opts...)
	if d.clientErr != nil {
		d.clientErr = fmt.Errorf("docker client for %q: %w", cfg.Endpoint, d.clientErr)
	}
	d.pulls = newPuller(d.client, d.logger, cfg.PullActivityTimeout)
	d.images = newImageGC(d.client, d.logger, cfg.GC)
	d.mounts, d.mountsErr = newMounter(cfg.MountDir, d.logger)
	return d
}

func (d *Driver) Name() string { return DriverName }

// Fingerprint asks the engine for its version. Without an engine the
// driver is undetected and contributes no attributes; the node works on.
func (d *Driver) Fingerprint(ctx context.Context) *drivers.Fingerprint {
	fp := &drivers.Fingerprint{Attributes: map[string]string{}}
	if d.clientErr != nil {
		fp.HealthDescription = d.clientErr.Error()
		return fp
	}
	ctx, cancel := context.WithTimeout(ctx, fingerprintTimeout)
	defer cancel()
	if _, err := d.client.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		fp.HealthDescription = "Failed to connect to the Docker engine: " + err.Error()
		return fp
	}
	if err := d.canMount(); err != nil {
		// The engine answers, but no task could get its directories.
		fp.Detected, fp.HealthDescription = true, err.Error()
		return fp
	}
	v, err := d.client.ServerVersion(ctx, client.ServerVersionOptions{})
	if err != nil {
		fp.HealthDescription = "Failed to read the Docker engine's version: " + err.Error()
		return fp
	}
	fp.Detected, fp.Healthy, fp.HealthDescription = true, true, "healthy"
	fp.Attributes = map[string]string{
		"driver." + DriverName:                         "1",
		"driver." + DriverName + ".version":            v.Version,
		"driver." + DriverName + ".api_version":        d.client.ClientVersion(),
		"driver." + DriverName + ".os_type":            v.Os,
		"driver." + DriverName + ".privileged.enabled": strconv.FormatBool(d.cfg.AllowPrivileged),
		"driver." + DriverName + ".volumes.enabled":    strconv.FormatBool(d.cfg.VolumesEnabled),
	}
	return fp
}

// Shutdown detaches from every container, which runs on; the next agent
// recovers them. Output not yet copied stays with the engine.
func (d *Driver) Shutdown() {
	d.images.stop()
	if d.mounts != nil {
		d.mounts.close()
	}
	for _, t := range d.tasks.All() {
		t.detach()
	}
	d.tasks.Clear()
}

// stateDir is where the driver keeps the task's state, inside its task
// directory.
func stateDir(cfg *drivers.TaskConfig) string {
	if cfg.TaskDir == "" {
		return ""
	}
	return filepath.Join(cfg.TaskDir, stateDirName)
}

// engineCtx is the context of one short engine call.
func engineCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), apiTimeout)
}

// canMount says why the driver cannot hand the engine a task's
// directories, if it cannot.
func (d *Driver) canMount() error {
	if d.mountsErr != nil {
		return d.mountsErr
	}
	return canMount()
}
