package nomad

import (
	"context"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
)

// deploymentCluster is the server as the deployment watcher (package
// deploymentwatcher) sees it.
type deploymentCluster struct{ s *Server }

func (c deploymentCluster) State() *state.StateStore { return c.s.State() }

func (c deploymentCluster) Apply(ctx context.Context, t logentry.MessageType, entry logentry.Entry) error {
	_, err := c.s.raftApply(ctx, t, entry)
	return err
}

// Revert is the server's own write (auto_revert), which no user's
// permission decides: the job is registered again as it was at version,
// unless it changed meanwhile.
func (c deploymentCluster) Revert(ctx context.Context, namespace, jobID string, version, jobModifyIndex uint64) error {
	_, target, err := c.s.revertTarget(&JobRevertRequest{Namespace: namespace, JobID: jobID, JobVersion: version})
	if err != nil {
		return err
	}
	target.Stable = false // stable again only once its own deployment succeeds
	_, err = c.s.registerJobLocal(ctx, &JobRegisterRequest{
		Job:            target,
		EnforceIndex:   true,
		JobModifyIndex: jobModifyIndex,
	})
	return err
}
