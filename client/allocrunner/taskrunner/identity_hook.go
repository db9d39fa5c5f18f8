package taskrunner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// Where a task finds its workload identity, as in Nomad.
const (
	envNomadToken  = "NOMAD_TOKEN"
	tokenFileName  = "nomad_token"
	tokenFileMode  = 0o600
	identityHookID = "identity"
)

// IdentitySigner asks the servers to sign the workload identity of a task
// of an allocation. It must be safe for concurrent use.
type IdentitySigner interface {
	SignIdentity(ctx context.Context, allocID, task string) (token string, err error)
}

// identityRenewTimeout bounds one renewal's request to the servers.
const identityRenewTimeout = 30 * time.Second

// identityRenewRetry is the least pause before a failed renewal is tried
// again.
const identityRenewRetry = time.Second

// identityHook hands a task its workload identity, as its identity block
// asks: NOMAD_TOKEN in its environment (env = true), secrets/nomad_token
// (file = true). It asks the servers for a fresh token before every run,
// so a restarted task gets one signed by the keyring's active key. A task
// whose block asks for neither gets none, and no request is made.
//
// A token with a ttl in the file is renewed while the task runs, at half
// its ttl, in place: the task reads a valid token there for as long as it
// runs. The one in the environment cannot change under a running process.
// Renewal runs on a timer, with no goroutine while it waits, and stops
// when the runner is done (done closes) or the next run starts.
type identityHook struct {
	signer  IdentitySigner
	allocID string
	done    <-chan struct{}

	mu sync.Mutex
	// renew is the pending renewal; gen counts runs, so that a renewal
	// of an earlier run, in flight as a new one starts, does not carry on.
	renew *time.Timer
	gen   uint64
}

func (*identityHook) Name() string { return identityHookID }

func (h *identityHook) Prestart(ctx context.Context, req *prestartRequest) (bool, error) {
	gen := h.stopRenewal()
	id := req.Task.Identity
	if !id.Exposed() {
		return false, nil
	}
	if h.signer == nil {
		return false, errors.New("the task's identity block asks for a token, and this client has no way to ask the servers for one")
	}
	token, err := h.signer.SignIdentity(ctx, h.allocID, req.Task.Name)
	if err != nil {
		// The servers may be out of reach for a moment: let the restart
		// policy try again.
		return false, drivers.NewRecoverableError(fmt.Errorf("get the task's workload identity: %w", err), true)
	}
	if id.Env {
		req.Env.vars[envNomadToken] = token
	}
	if id.File {
		if err := writeTokenFile(req.TaskDir, req.Task.User, token); err != nil {
			return false, drivers.NewRecoverableError(err, true)
		}
		if id.TTL > 0 {
			h.scheduleRenewal(gen, req.TaskDir, req.Task, id.TTL/2)
		}
	}
	return false, nil
}

// scheduleRenewal renews the token file of run gen after wait, unless
// another run started meanwhile.
func (h *identityHook) scheduleRenewal(gen uint64, dir *allocdir.TaskDir, task *structs.Task, wait time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if gen != h.gen {
		return
	}
	h.renew = time.AfterFunc(wait, func() { h.renewFile(gen, dir, task) })
}

// renewFile asks for a new token and writes it, then schedules the next
// renewal at half the ttl; a failure is tried again sooner.
func (h *identityHook) renewFile(gen uint64, dir *allocdir.TaskDir, task *structs.Task) {
	select {
	case <-h.done:
		return
	default:
	}
	ttl := task.Identity.TTL
	ctx, cancel := context.WithTimeout(context.Background(), identityRenewTimeout)
	token, err := h.signer.SignIdentity(ctx, h.allocID, task.Name)
	cancel()
	if err == nil {
		err = writeTokenFile(dir, task.User, token)
	}
	next := ttl / 2
	if err != nil {
		next = max(ttl/10, identityRenewRetry)
	}
	h.scheduleRenewal(gen, dir, task, next)
}

// stopRenewal stops the renewal of the previous run's token and returns
// the new run's generation.
func (h *identityHook) stopRenewal() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.renew != nil {
		h.renew.Stop()
		h.renew = nil
	}
	h.gen++
	return h.gen
}

// writeTokenFile writes the token to secrets/nomad_token, readable by the
// task's user only, replacing it whole: a task never reads half a token.
// The task can write its secrets/ (and its sibling tasks, the allocation
// directory): the file is made and renamed beneath the allocation
// directory, following no link (see package beneath), so that a link
// left there cannot make the client write or chown a file elsewhere.
func writeTokenFile(dir *allocdir.TaskDir, user, token string) error {
	secrets, err := dir.Open(allocdir.TaskSecretsName)
	if err != nil {
		return fmt.Errorf("write workload identity: %w", err)
	}
	defer secrets.Close()
	tmp, name, err := secrets.CreateTemp("." + tokenFileName + "-*")
	if err != nil {
		return fmt.Errorf("write workload identity: %w", err)
	}
	defer secrets.Remove(name) // after a successful rename this is a no-op
	if err := fillTokenFile(tmp, user, token); err != nil {
		return err
	}
	if err := secrets.Rename(name, tokenFileName); err != nil {
		return fmt.Errorf("write workload identity: %w", err)
	}
	return nil
}

// fillTokenFile writes the token to tmp, sets its mode and gives it to
// the task's user, through the open file, and closes it.
func fillTokenFile(tmp *os.File, user, token string) error {
	defer tmp.Close()
	if _, err := tmp.WriteString(token); err != nil {
		return fmt.Errorf("write workload identity: %w", err)
	}
	if err := tmp.Chmod(tokenFileMode); err != nil {
		return fmt.Errorf("write workload identity: %w", err)
	}
	if owner, ok, err := taskOwner(user); err != nil {
		return err
	} else if ok {
		if err := tmp.Chown(owner.UID, owner.GID); err != nil {
			return fmt.Errorf("give the workload identity to the task's user: %w", err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write workload identity: %w", err)
	}
	return nil
}
