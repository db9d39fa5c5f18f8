package taskrunner

import (
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/structs"
)

// Environment variables every task gets. The names are Nomad's.
const (
	envAllocDir       = "NOMAD_ALLOC_DIR"
	envTaskDir        = "NOMAD_TASK_DIR"
	envSecretsDir     = "NOMAD_SECRETS_DIR"
	envAllocID        = "NOMAD_ALLOC_ID"
	envShortAllocID   = "NOMAD_SHORT_ALLOC_ID"
	envAllocName      = "NOMAD_ALLOC_NAME"
	envAllocIndex     = "NOMAD_ALLOC_INDEX"
	envGroupName      = "NOMAD_GROUP_NAME"
	envTaskName       = "NOMAD_TASK_NAME"
	envJobID          = "NOMAD_JOB_ID"
	envJobName        = "NOMAD_JOB_NAME"
	envJobParentID    = "NOMAD_JOB_PARENT_ID"
	envNamespace      = "NOMAD_NAMESPACE"
	envRegion         = "NOMAD_REGION"
	envDatacenter     = "NOMAD_DC"
	envCPULimit       = "NOMAD_CPU_LIMIT"
	envCPUCores       = "NOMAD_CPU_CORES"
	envMemoryLimit    = "NOMAD_MEMORY_LIMIT"
	envMemoryMaxLimit = "NOMAD_MEMORY_MAX_LIMIT"
	envMetaPrefix     = "NOMAD_META_"

	// Drover's: the first max_run_duration deadline that applies to the
	// task (Unix seconds) and its budget (seconds), both rounded down.
	envMaxRunDeadline = "NOMAD_MAX_RUN_DEADLINE"
	envMaxRunDuration = "NOMAD_MAX_RUN_DURATION"
)

// taskEnv is a task's environment and the node it runs on: together they
// resolve the ${...} references in the task's config, env and artifacts.
type taskEnv struct {
	vars map[string]string
	node *structs.Node
}

// buildTaskEnv returns the environment of task in alloc: the NOMAD_*
// variables, then the task's own env block, whose values may refer to the
// NOMAD_* variables and the node. alloc's state of the task must hold the
// task's anchor (RunnerStartedAt), for NOMAD_MAX_RUN_DEADLINE.
func buildTaskEnv(alloc *structs.Allocation, task *structs.Task, dir *allocdir.TaskDir, node *structs.Node) *taskEnv {
	base := nomadVars(alloc, task, dir, node)
	env := &taskEnv{vars: base, node: node}

	vars := maps.Clone(base)
	for k, v := range task.Env {
		vars[k] = env.replace(v)
	}
	env.vars = vars
	return env
}

// Map returns a copy of the environment variables.
func (e *taskEnv) Map() map[string]string {
	return maps.Clone(e.vars)
}

func nomadVars(alloc *structs.Allocation, task *structs.Task, dir *allocdir.TaskDir, node *structs.Node) map[string]string {
	vars := map[string]string{
		envAllocDir:     dir.SharedDir,
		envTaskDir:      dir.LocalDir,
		envSecretsDir:   dir.SecretsDir,
		envAllocID:      alloc.ID,
		envShortAllocID: structs.ShortID(alloc.ID),
		envAllocName:    alloc.Name,
		envAllocIndex:   strconv.FormatUint(uint64(alloc.Index()), 10),
		envGroupName:    alloc.TaskGroup,
		envTaskName:     task.Name,
		envJobID:        alloc.JobID,
		envNamespace:    alloc.Namespace,
	}
	var meta map[string]string
	if job := alloc.Job; job != nil {
		vars[envJobName] = job.Name
		vars[envJobParentID] = job.ParentID
		vars[envRegion] = job.Region
		meta = maps.Clone(job.Meta)
		if tg := alloc.LookupTaskGroup(); tg != nil {
			meta = merged(meta, tg.Meta)
		}
	}
	meta = merged(meta, task.Meta)
	if node != nil {
		vars[envDatacenter] = node.Datacenter
	}
	if r := task.Resources; r != nil {
		vars[envCPULimit] = strconv.Itoa(r.CPU)
		vars[envMemoryLimit] = strconv.Itoa(r.MemoryMB)
		if r.MemoryMaxMB > 0 {
			vars[envMemoryMaxLimit] = strconv.Itoa(r.MemoryMaxMB)
		}
		if r.Cores > 0 {
			vars[envCPUCores] = strconv.Itoa(r.Cores)
		}
	}
	addPortVars(vars, alloc)
	addAllocPortVars(vars, alloc)
	if m := alloc.TaskDeadline(task.Name); m.HasDeadline() {
		vars[envMaxRunDeadline] = strconv.FormatInt(m.Deadline.Unix(), 10)
		vars[envMaxRunDuration] = strconv.FormatInt(int64(m.Budget/time.Second), 10)
	}
	for k, v := range meta {
		// Both spellings, as Nomad offers: the key as written and in
		// upper case.
		vars[envMetaPrefix+k] = v
		vars[envMetaPrefix+strings.ToUpper(k)] = v
	}
	return vars
}

// merged returns base with over's entries on top; base may be nil.
func merged(base, over map[string]string) map[string]string {
	if len(over) == 0 {
		return base
	}
	if base == nil {
		base = make(map[string]string, len(over))
	}
	maps.Copy(base, over)
	return base
}
