//go:build drover_authcount

package nomad

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/authcount"
)

// TestAuthorize_aForwardedWriteIsCheckedOnce counts the permission checks
// of the three servers of one process: a write made on the leader, and one
// made on a follower and forwarded, are each checked once, on the leader.
// (Built with -tags drover_authcount; make test runs it.)
func TestAuthorize_aForwardedWriteIsCheckedOnce(t *testing.T) {
	c := startCluster(t, func(cfg *Config) { cfg.ACLEnabled = true; cfg.NumSchedulers = new(0) })
	leader := c.waitForOneLeader(c.servers)
	f := follower(c.servers)
	boot, err := leader.BootstrapACL(testCtx(t), &ACLBootstrapRequest{})
	must.NoError(t, err)

	for name, s := range map[string]*Server{"on the leader": leader, "through a follower": f} {
		t.Run(name, func(t *testing.T) {
			ctx := callerCtx(t, s, boot.Token.SecretID)
			before := authcount.Total()
			_, err := s.RegisterJob(ctx, &JobRegisterRequest{Job: testJob("once-" + s.config.NodeName)})
			must.NoError(t, err)
			must.Eq(t, 1, authcount.Total()-before)

			before = authcount.Total()
			_, err = s.DeregisterJob(callerCtx(t, s, ""), &JobDeregisterRequest{Namespace: "default", JobID: "once-" + s.config.NodeName})
			must.ErrorIs(t, err, ErrPermissionDenied)
			must.Eq(t, 1, authcount.Total()-before)
		})
	}
}
