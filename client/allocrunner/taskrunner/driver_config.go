package taskrunner

import (
	"fmt"
	"time"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// driverConfig is the driver's view of one run of the task: a fresh ID,
// the interpolated config and env, the directories and the log files.
func (tr *TaskRunner) driverConfig(alloc *structs.Allocation, task *structs.Task, env *taskEnv) *drivers.TaskConfig {
	cfg := &drivers.TaskConfig{
		ID:            fmt.Sprintf("%s/%s/%s", alloc.ID, task.Name, structs.GenerateUUID()[:8]),
		AllocID:       alloc.ID,
		Name:          task.Name,
		TaskGroupName: alloc.TaskGroup,
		Namespace:     alloc.Namespace,
		Driver:        task.Driver,
		Config:        env.interpolatedConfig(task.Config),
		Env:           env.Map(),
		User:          task.User,
		AllocDir:      tr.taskDir.SharedDir,
		TaskDir:       tr.taskDir.Dir,
		Resources:     task.Resources,
		Ports:         alloc.PortMappings(),
	}
	if iso := tr.networkIsolation(); iso != nil {
		cfg.NetNSPath = iso.NetNSPath
	}
	if len(alloc.Networks) > 0 {
		cfg.DNS = alloc.Networks[0].Copy().DNS
	}
	if alloc.Job != nil {
		cfg.JobName = alloc.Job.Name
	}
	cfg.EmitEvent = func(ev *drivers.TaskEvent) { tr.emit(driverMessageEvent(ev)) }
	logs := task.LogConfig
	if logs == nil {
		logs = structs.DefaultLogConfig()
	}
	if !logs.Disabled {
		cfg.StdoutPath, cfg.StderrPath = tr.taskDir.LogPaths()
		cfg.LogMaxFiles = logs.MaxFiles
		cfg.LogMaxFileSizeMB = logs.MaxFileSizeMB
	}
	return cfg
}

// killParams returns the signal and timeout that stop the task.
func killParams(task *structs.Task) (string, time.Duration) {
	signal := task.KillSignal
	if signal == "" {
		signal = structs.DefaultKillSignal
	}
	return signal, task.KillTimeout
}
