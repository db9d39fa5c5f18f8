package nomad

import (
	"context"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
)

// drainCluster is the server as the drainer (package drainer) sees it.
type drainCluster struct{ s *Server }

func (c drainCluster) State() *state.StateStore { return c.s.State() }

func (c drainCluster) Apply(ctx context.Context, t logentry.MessageType, entry logentry.Entry) error {
	_, err := c.s.raftApply(ctx, t, entry)
	return err
}

// EndDrain is the server's own write, which no user's permission decides.
func (c drainCluster) EndDrain(ctx context.Context, nodeID string) error {
	return c.s.endDrain(ctx, nodeID)
}
