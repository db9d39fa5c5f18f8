package nomad

import (
	"fmt"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// waitForRootKey waits until s holds an active root key and returns it.
func waitForRootKey(t *testing.T, s *Server) *structs.RootKey {
	t.Helper()
	var key *structs.RootKey
	waitfor.True(t, "an active root key on "+s.config.NodeName, func() bool {
		k, err := s.State().ActiveRootKey(nil)
		key = k
		return err == nil && k != nil
	})
	return key
}

func TestKeyring_firstLeaderMakesOneKey(t *testing.T) {
	s := startServer(t, testConfig(t, "keyring"))
	waitForLeader(t, s)
	key := waitForRootKey(t, s)
	must.Eq(t, structs.RootKeyStateActive, key.State)
	must.NoError(t, key.Validate())

	public, meta, err := s.KeyringPublicKeys(testCtx(t), QueryOptions{AllowStale: true, ACL: acl.Management()})
	must.NoError(t, err)
	must.Len(t, 1, public)
	must.Eq(t, key.KeyID, public[0].KeyID)
	must.Eq(t, key.PublicKey(), public[0].Key)
	must.Eq(t, key.CreateIndex, meta.Index)

	// Leading again finds the keyring full and adds nothing.
	s.restartLeadership(testCtx(t))
	must.NoError(t, s.writeFirstRootKey(testCtx(t)))
	keys, err := s.State().RootKeys(nil)
	must.NoError(t, err)
	must.Len(t, 1, keys)
}

func TestKeyring_replicatedToEveryServer(t *testing.T) {
	c := startCluster(t)
	leader := c.waitForOneLeader(c.servers)
	first := waitForRootKey(t, leader)
	for _, s := range c.servers {
		waitfor.True(t, fmt.Sprintf("the leader's key on %s", s.config.NodeName), func() bool {
			public, _, err := s.KeyringPublicKeys(testCtx(t), QueryOptions{AllowStale: true})
			return err == nil && len(public) == 1 && public[0].KeyID == first.KeyID && public[0].Key.Equal(first.PublicKey())
		})
	}

	// A rotation through a follower reaches the leader and every server.
	rotated, err := follower(c.servers).RotateRootKey(testCtx(t), &RootKeyRotateRequest{})
	must.NoError(t, err)
	must.Positive(t, rotated.Index)
	must.Eq(t, 0, rotated.Key.CreateIndex)
	for _, s := range c.servers {
		waitfor.True(t, fmt.Sprintf("the rotated key on %s", s.config.NodeName), func() bool {
			active, err := s.State().ActiveRootKey(nil)
			return err == nil && active != nil && active.KeyID == rotated.Key.KeyID
		})
	}
	key := rotated.Key

	// A new leader keeps the keys it finds.
	must.NoError(t, leader.Shutdown())
	rest := []*Server{}
	for _, s := range c.servers {
		if s != leader {
			rest = append(rest, s)
		}
	}
	next := c.waitForOneLeader(rest)
	waitfor.Always(t, "one key after the election", leaderWait/10, func() bool {
		keys, err := next.State().RootKeys(nil)
		return err == nil && len(keys) == 2 && keys[1].KeyID == key.KeyID && keys[1].Active()
	})
}
