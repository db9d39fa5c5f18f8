package taskrunner

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"strconv"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/drivers"
)

// taskDirHook builds the task's directory: local/, secrets/ and tmp/. It
// runs before every run, so a directory removed meanwhile comes back. A
// task with a user of this machine gets its directories, so that it can
// write them when its driver runs it as that user.
type taskDirHook struct{}

func (taskDirHook) Name() string { return "task_dir" }

func (taskDirHook) Prestart(_ context.Context, req *prestartRequest) (bool, error) {
	req.Emit(buildingTaskDirEvent())
	if err := req.TaskDir.Build(); err != nil {
		// A directory that cannot be made now may be made later (a full
		// disk): let the restart policy try again.
		return false, drivers.NewRecoverableError(err, true)
	}
	owner, ok, err := taskOwner(req.Task.User)
	if err != nil || !ok {
		return false, err
	}
	if err := req.TaskDir.GiveTo(owner); err != nil {
		return false, drivers.NewRecoverableError(err, true)
	}
	return false, nil
}

// taskOwner is the owner a task's directories go to: its user, when that
// is a user of this machine other than the agent's and the agent, root,
// may give them away. Otherwise ok is false and the directories stay the
// agent's: a user the machine does not know may be one of a container's
// (the driver resolves it), and a driver that runs tasks as host users
// refuses another user without root itself, saying why.
func taskOwner(name string) (owner allocdir.Owner, ok bool, err error) {
	if name == "" || os.Geteuid() != 0 {
		return owner, false, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return owner, false, nil
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return owner, false, fmt.Errorf("task user %q: uid %q: %w", name, u.Uid, err)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return owner, false, fmt.Errorf("task user %q: gid %q: %w", name, u.Gid, err)
	}
	if uid == 0 {
		return owner, false, nil
	}
	return allocdir.Owner{UID: uid, GID: gid}, true, nil
}
