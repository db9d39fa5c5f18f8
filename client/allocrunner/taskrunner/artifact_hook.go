package taskrunner

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/netguard"
)

// artifactHook fetches the task's artifacts into its directory. Once all
// are fetched it is done: later runs of the task reuse them.
type artifactHook struct {
	config *ArtifactConfig
	logger hclog.Logger
}

func (*artifactHook) Name() string { return "artifacts" }

func (h *artifactHook) Prestart(ctx context.Context, req *prestartRequest) (bool, error) {
	if len(req.Task.Artifacts) == 0 {
		return true, nil
	}
	req.Emit(downloadingArtifactsEvent())
	fetcher := newArtifactFetcher(h.config)
	defer fetcher.close()
	var owner *allocdir.Owner
	if o, ok, err := taskOwner(req.Task.User); err != nil {
		return false, err
	} else if ok {
		owner = &o
	}
	for i, art := range req.Task.Artifacts {
		if err := fetchArtifact(ctx, fetcher, art, req.Env, req.TaskDir, owner); err != nil {
			source := req.Env.replace(art.GetterSource)
			// What the job's author is not told, the operator is.
			if unreachable := (*netguard.UnreachableError)(nil); errors.As(err, &unreachable) {
				h.logger.Warn("artifact download failed", "artifact", i, "source", source, "error", unreachable.Err)
			}
			err = fmt.Errorf("artifact %d (%s): %w", i, source, err)
			// A failed download may succeed later; let the restart policy
			// decide.
			return false, drivers.NewRecoverableError(&hookError{err: err, event: artifactFailedEvent(err)}, true)
		}
	}
	return true, nil
}
