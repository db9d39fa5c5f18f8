package taskrunner

import (
	"context"
	"fmt"
	"net/http"

	"github.com/drover-io/drover/drivers"
)

// artifactHook fetches the task's artifacts into its directory. Once all
// are fetched it is done: later runs of the task reuse them.
type artifactHook struct {
	client *http.Client
	limits *ArtifactConfig
}

func (*artifactHook) Name() string { return "artifacts" }

func (h *artifactHook) Prestart(ctx context.Context, req *prestartRequest) (bool, error) {
	if len(req.Task.Artifacts) == 0 {
		return true, nil
	}
	req.Emit(downloadingArtifactsEvent())
	for i, art := range req.Task.Artifacts {
		if err := fetchArtifact(ctx, h.client, art, req.Env, req.TaskDir, h.limits); err != nil {
			err = fmt.Errorf("artifact %d (%s): %w", i, req.Env.replace(art.GetterSource), err)
			// A failed download may succeed later; let the restart policy
			// decide.
			return false, drivers.NewRecoverableError(&hookError{err: err, event: artifactFailedEvent(err)}, true)
		}
	}
	return true, nil
}
