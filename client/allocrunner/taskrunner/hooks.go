package taskrunner

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/structs"
)

// prestartHook prepares a task before each run: it builds directories,
// fetches files, and so on. A hook whose work holds for every later run
// reports it done and is skipped from then on, also after an agent restart.
//
// Prestart is called on the task runner's Run goroutine, before each start
// of the task (the first, and each restart), in the order the hooks were
// registered, one at a time, and never for a run the runner re-attaches to
// after an agent restart. The task runner's Update may run concurrently:
// req holds the definition this run starts with, which a later update does
// not change. Prestart is skipped once the task is killed, and for the
// hooks after one that failed: the start then fails, and the restart
// policy decides what follows.
type prestartHook interface {
	// Name keys the hook's persisted state.
	Name() string
	// Prestart does the hook's work. It must give up when ctx is done: the
	// task is being killed or the agent is stopping.
	Prestart(ctx context.Context, req *prestartRequest) (done bool, err error)
}

// prestartRequest is what a prestart hook works with.
type prestartRequest struct {
	Task    *structs.Task
	TaskDir *allocdir.TaskDir
	Env     *taskEnv
	// Emit records a task event.
	Emit func(*structs.TaskEvent)
}

// hookError is a prestart hook's failure together with the event that
// reports it.
type hookError struct {
	err   error
	event *structs.TaskEvent
}

func (e *hookError) Error() string { return e.err.Error() }

func (e *hookError) Unwrap() error { return e.err }

// runPrestartHooks runs the hooks not yet done, in order, and persists
// which are done.
func (tr *TaskRunner) runPrestartHooks(ctx context.Context, req *prestartRequest) error {
	for _, h := range tr.prestartHooks {
		if tr.hookDone(h.Name()) {
			continue
		}
		done, err := h.Prestart(ctx, req)
		if err != nil {
			return fmt.Errorf("prestart hook %q: %w", h.Name(), err)
		}
		if done {
			tr.updateState(func(_ *structs.TaskState, local *state.TaskRunnerLocalState) {
				local.Hooks = withPrestartDone(local.Hooks, h.Name())
			})
		}
	}
	return nil
}

// prestartDone is the state of a hook whose prestart work is done.
var prestartDone = &state.HookState{PrestartDone: true}

// sharedHookStates holds one map of hook states for each set of hooks
// done (and nothing else kept), keyed by their names: every running task
// has one such set, mostly the same few. Nothing writes a task runner's
// hook states in place (withPrestartDone makes a new map; a persisted copy
// clones them), so a map here may be shared.
//
// It pays: BenchmarkAllocRunner_Memory (1,000 running allocations of one
// task) keeps 9.36 KB of heap per allocation with it, 9.59 KB with a map
// per task (+2.5%, medians of 6, p=0.002; measured on 01f6819).
var sharedHookStates sync.Map

// withPrestartDone returns hooks, which it leaves as they are, with the
// named hook's prestart done.
func withPrestartDone(hooks map[string]*state.HookState, name string) map[string]*state.HookState {
	next := make(map[string]*state.HookState, len(hooks)+1)
	maps.Copy(next, hooks)
	next[name] = prestartDone
	return sharedHooks(next)
}

// sharedHooks returns the shared map equal to hooks when every state in
// it is a plain prestartDone, hooks itself otherwise. hooks must not be
// written once passed here.
func sharedHooks(hooks map[string]*state.HookState) map[string]*state.HookState {
	names := make([]string, 0, len(hooks))
	for name, hs := range hooks {
		if hs == nil || !hs.PrestartDone || len(hs.Data) > 0 {
			return hooks
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return hooks
	}
	slices.Sort(names)
	shared, _ := sharedHookStates.LoadOrStore(strings.Join(names, "\x00"), hooks)
	return shared.(map[string]*state.HookState)
}

func (tr *TaskRunner) hookDone(name string) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	hs := tr.local.Hooks[name]
	return hs != nil && hs.PrestartDone
}
