package taskrunner

import (
	"context"
	"fmt"
	"os"
	"path"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// dispatchPayloadFileMode is the payload file's mode: the task's to read.
const dispatchPayloadFileMode = 0o644

// dispatchPayloadHook writes the payload of the dispatch that created the
// job to the file the task's dispatch_payload block names, under its
// local/ directory, once: as in Nomad, a restart finds the file the first
// run got. The task can write its local/ directory, so the file and the
// directories on its way are made beneath the allocation directory,
// following no link (see package beneath): a link the task left there
// cannot make the client write elsewhere. A task without the block, or a
// job without a payload, gets no file.
type dispatchPayloadHook struct {
	payload []byte
}

func (dispatchPayloadHook) Name() string { return "dispatch_payload" }

func (h dispatchPayloadHook) Prestart(_ context.Context, req *prestartRequest) (bool, error) {
	cfg := req.Task.DispatchPayload
	if cfg == nil || len(h.payload) == 0 {
		return true, nil
	}
	if err := writePayloadFile(req.TaskDir, req.Task.User, cfg.File, h.payload); err != nil {
		// A full disk may have room later: let the restart policy try
		// again.
		return false, drivers.NewRecoverableError(err, true)
	}
	return true, nil
}

// writePayloadFile writes payload to local/<file> of the task directory,
// replacing what is there whole.
func writePayloadFile(dir *allocdir.TaskDir, user, file string, payload []byte) error {
	local, err := dir.Open(allocdir.TaskLocalName)
	if err != nil {
		return fmt.Errorf("write dispatch payload: %w", err)
	}
	defer local.Close()
	sub, base := path.Split(path.Clean(file))
	parent := local
	if sub != "" {
		if parent, err = local.MkdirAll(sub, 0o755); err != nil {
			return fmt.Errorf("write dispatch payload to local/%s: %w", file, err)
		}
		defer parent.Close()
	}
	tmp, name, err := parent.CreateTemp(".dispatch-payload-*")
	if err != nil {
		return fmt.Errorf("write dispatch payload to local/%s: %w", file, err)
	}
	defer parent.Remove(name) // after a successful rename this is a no-op
	if err := fillPayloadFile(tmp, user, payload); err != nil {
		return fmt.Errorf("write dispatch payload to local/%s: %w", file, err)
	}
	if err := parent.Rename(name, base); err != nil {
		return fmt.Errorf("write dispatch payload to local/%s: %w", file, err)
	}
	return nil
}

// fillPayloadFile writes payload to tmp, sets its mode and gives it to
// the task's user, through the open file, and closes it.
func fillPayloadFile(tmp *os.File, user string, payload []byte) error {
	defer tmp.Close()
	if _, err := tmp.Write(payload); err != nil {
		return err
	}
	if err := tmp.Chmod(dispatchPayloadFileMode); err != nil {
		return err
	}
	owner, ok, err := taskOwner(user)
	if err != nil {
		return err
	}
	if ok {
		if err := tmp.Chown(owner.UID, owner.GID); err != nil {
			return fmt.Errorf("give the payload to the task's user: %w", err)
		}
	}
	return tmp.Close()
}

// jobPayload is the dispatch payload of the job alloc runs, if any.
func jobPayload(alloc *structs.Allocation) []byte {
	if alloc == nil || alloc.Job == nil {
		return nil
	}
	return alloc.Job.Payload
}
