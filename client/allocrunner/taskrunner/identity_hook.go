package taskrunner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/drover-io/drover/drivers"
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

// identityHook hands a task its workload identity, as its identity block
// asks: NOMAD_TOKEN in its environment (env = true), secrets/nomad_token
// (file = true). It asks the servers for a fresh token before every run,
// so a restarted task gets one signed by the keyring's active key. A task
// whose block asks for neither gets none, and no request is made.
type identityHook struct {
	signer  IdentitySigner
	allocID string
}

func (*identityHook) Name() string { return identityHookID }

func (h *identityHook) Prestart(ctx context.Context, req *prestartRequest) (bool, error) {
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
		if err := writeTokenFile(req, token); err != nil {
			return false, drivers.NewRecoverableError(err, true)
		}
	}
	return false, nil
}

// writeTokenFile writes the token to secrets/nomad_token, readable by the
// task's user only, replacing it whole: a task never reads half a token.
func writeTokenFile(req *prestartRequest, token string) error {
	path := filepath.Join(req.TaskDir.SecretsDir, tokenFileName)
	tmp, err := os.CreateTemp(req.TaskDir.SecretsDir, "."+tokenFileName+"-*")
	if err != nil {
		return fmt.Errorf("write workload identity: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(token); err != nil {
		tmp.Close()
		return fmt.Errorf("write workload identity: %w", err)
	}
	if err := tmp.Chmod(tokenFileMode); err != nil {
		tmp.Close()
		return fmt.Errorf("write workload identity: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write workload identity: %w", err)
	}
	if owner, ok, err := taskOwner(req.Task.User); err != nil {
		return err
	} else if ok {
		if err := os.Chown(tmp.Name(), owner.UID, owner.GID); err != nil {
			return fmt.Errorf("give the workload identity to the task's user: %w", err)
		}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write workload identity: %w", err)
	}
	return nil
}
