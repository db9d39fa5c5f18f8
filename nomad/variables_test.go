package nomad

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/varlock"
	"github.com/drover-io/drover/structs"
)

// secretValue is an item value no other bytes of the tests' state hold.
const secretValue = "s3cr3t-plaintext-4c1f0e"

func newVar(path string, items map[string]string) *structs.VariableDecrypted {
	return &structs.VariableDecrypted{
		VariableMetadata: structs.VariableMetadata{Namespace: structs.DefaultNamespace, Path: path},
		Items:            items,
	}
}

func setVar(t *testing.T, ctx context.Context, s *Server, v *structs.VariableDecrypted, cas *uint64) *VariablesApplyResponse {
	t.Helper()
	resp, err := s.ApplyVariable(ctx, &VariablesApplyRequest{Op: structs.VarOpSet, Var: v, CheckIndex: cas})
	must.NoError(t, err)
	return resp
}

func readVar(t *testing.T, ctx context.Context, s *Server, path string) *structs.VariableDecrypted {
	t.Helper()
	resp, err := s.ReadVariable(ctx, &structs.VariablesReadRequest{Path: path, Namespace: structs.DefaultNamespace})
	must.NoError(t, err)
	return resp.Data
}

func varServer(t *testing.T) *Server {
	s := startServer(t, unscheduledConfig(t, "vars"))
	waitForLeader(t, s)
	waitForRootKey(t, s)
	return s
}

func TestVariables_checkAndSet(t *testing.T) {
	s := varServer(t)
	ctx := testCtx(t)
	zero := uint64(0)
	created := setVar(t, ctx, s, newVar("app/db", map[string]string{"user": "a"}), &zero)
	must.Nil(t, created.Conflict)
	must.Eq(t, "a", created.Output.Items["user"])

	// cas=0 on a variable that exists conflicts, and answers it.
	again := setVar(t, ctx, s, newVar("app/db", map[string]string{"user": "b"}), &zero)
	must.NotNil(t, again.Conflict)
	must.Eq(t, created.Output.ModifyIndex, again.Conflict.ModifyIndex)
	must.Eq(t, "a", again.Conflict.Items["user"])

	stale := created.Output.ModifyIndex
	updated := setVar(t, ctx, s, newVar("app/db", map[string]string{"user": "c"}), &stale)
	must.Nil(t, updated.Conflict)
	lost := setVar(t, ctx, s, newVar("app/db", map[string]string{"user": "d"}), &stale)
	must.NotNil(t, lost.Conflict, must.Sprint("a write at a stale index was applied"))
	must.Eq(t, "c", lost.Conflict.Items["user"])

	del, err := s.ApplyVariable(ctx, &VariablesApplyRequest{Op: structs.VarOpDelete, Var: newVar("app/db", nil), CheckIndex: &stale})
	must.NoError(t, err)
	must.NotNil(t, del.Conflict)
	must.Eq(t, "c", readVar(t, ctx, s, "app/db").Items["user"])
	current := updated.Output.ModifyIndex
	del, err = s.ApplyVariable(ctx, &VariablesApplyRequest{Op: structs.VarOpDelete, Var: newVar("app/db", nil), CheckIndex: &current})
	must.NoError(t, err)
	must.Nil(t, del.Conflict)
	must.Nil(t, readVar(t, ctx, s, "app/db"))
}

func TestVariables_refusesBadWrites(t *testing.T) {
	s := varServer(t)
	ctx := testCtx(t)
	for name, v := range map[string]*structs.VariableDecrypted{
		"no items":       newVar("a/b", nil),
		"bad path":       newVar("a/../b", map[string]string{"k": "v"}),
		"reserved":       newVar("nomad/other", map[string]string{"k": "v"}),
		"too large":      newVar("big", map[string]string{"k": strings.Repeat("x", structs.MaxVariableSize)}),
		"no such ns":     {VariableMetadata: structs.VariableMetadata{Namespace: "nope", Path: "a"}, Items: map[string]string{"k": "v"}},
		"leading slash":  newVar("/a", map[string]string{"k": "v"}),
		"double slashes": newVar("a//b", map[string]string{"k": "v"}),
	} {
		_, err := s.ApplyVariable(ctx, &VariablesApplyRequest{Op: structs.VarOpSet, Var: v})
		must.ErrorIs(t, err, ErrInvalidRequest, must.Sprint(name))
	}
}

// TestVariables_ACL: a token reads and writes the paths its variables
// rules grant, and nothing else.
func TestVariables_ACL(t *testing.T) {
	s, mgmt := aclServer(t)
	waitForRootKey(t, s)
	admin := callerCtx(t, s, mgmt.SecretID)
	setVar(t, admin, s, newVar("project/a", map[string]string{"k": "v"}), nil)
	setVar(t, admin, s, newVar("system/b", map[string]string{"k": "v"}), nil)

	noVars := clientToken(t, s, "jobs-only", `namespace "default" { capabilities = ["submit-job", "read-job"] }`)
	project := clientToken(t, s, "project", `namespace "default" {
  variables {
    path "project/*" { capabilities = ["read", "write"] }
    path "system/*" { capabilities = ["list"] }
  }
}`)

	ctx := callerCtx(t, s, noVars.SecretID)
	_, err := s.ReadVariable(ctx, &structs.VariablesReadRequest{Path: "project/a"})
	must.ErrorIs(t, err, ErrPermissionDenied)
	_, err = s.ListVariables(ctx, &structs.VariablesListRequest{})
	must.ErrorIs(t, err, ErrPermissionDenied)
	_, err = s.ApplyVariable(ctx, &VariablesApplyRequest{Op: structs.VarOpSet, Var: newVar("project/x", map[string]string{"k": "v"})})
	must.ErrorIs(t, err, ErrPermissionDenied)

	ctx = callerCtx(t, s, project.SecretID)
	must.Eq(t, "v", readVar(t, ctx, s, "project/a").Items["k"])
	_, err = s.ReadVariable(ctx, &structs.VariablesReadRequest{Path: "system/b"})
	must.ErrorIs(t, err, ErrPermissionDenied, must.Sprint("list does not read"))
	setVar(t, ctx, s, newVar("project/c", map[string]string{"k": "v"}), nil)
	_, err = s.ApplyVariable(ctx, &VariablesApplyRequest{Op: structs.VarOpSet, Var: newVar("system/b", map[string]string{"k": "w"})})
	must.ErrorIs(t, err, ErrPermissionDenied)
	_, err = s.ApplyVariable(ctx, &VariablesApplyRequest{Op: structs.VarOpDelete, Var: newVar("project/a", nil)})
	must.ErrorIs(t, err, ErrPermissionDenied, must.Sprint("write does not destroy"))

	list, err := s.ListVariables(ctx, &structs.VariablesListRequest{})
	must.NoError(t, err)
	var paths []string
	for _, m := range list.Data {
		paths = append(paths, m.Path)
	}
	must.Eq(t, []string{"project/a", "project/c", "system/b"}, paths)

	// A conflict shows the variable's items only to who may read it.
	zero := uint64(0)
	conflictCtx := callerCtx(t, s, clientToken(t, s, "system-writer", `namespace "default" {
  variables {
    path "system/*" { capabilities = ["write"] }
  }
}`).SecretID)
	resp := setVar(t, conflictCtx, s, newVar("system/b", map[string]string{"k": "w"}), &zero)
	must.NotNil(t, resp.Conflict)
	must.Nil(t, resp.Conflict.Items)
}

// TestVariables_workloadIdentity: a task's identity reads its own job's
// variables, and no other job's.
func TestVariables_workloadIdentity(t *testing.T) {
	s, mgmt := aclServer(t)
	waitForRootKey(t, s)
	admin := callerCtx(t, s, mgmt.SecretID)
	node := testNode(structs.GenerateUUID())
	_, err := s.NodeRegister(admin, node)
	must.NoError(t, err)
	mustRegister(t, s, testJob("ident"))
	job, err := s.State().JobByID(nil, structs.DefaultNamespace, "ident")
	must.NoError(t, err)
	alloc := placeTestAlloc(t, s, job, node.ID)
	signed, err := s.SignIdentities(admin, &IdentitySignRequest{NodeID: node.ID, AllocID: alloc.ID, Tasks: []string{"task"}})
	must.NoError(t, err)
	jwt := signed.Identities[0].JWT

	group := alloc.TaskGroup
	own := []string{"nomad/jobs", "nomad/jobs/ident", "nomad/jobs/ident/" + group, "nomad/jobs/ident/" + group + "/task"}
	others := []string{"nomad/jobs/other", "nomad/jobs/ident/" + group + "/other-task", "project/a"}
	for _, p := range append(slicesConcat(own, others), "nomad/jobs/ident/"+group+"/task/deeper") {
		setVar(t, admin, s, newVar(p, map[string]string{"path": p}), nil)
	}

	ctx, err := s.WithCallerOf(t.Context(), jwt)
	must.NoError(t, err)
	for _, p := range own {
		must.Eq(t, p, readVar(t, ctx, s, p).Items["path"])
	}
	for _, p := range others {
		_, err := s.ReadVariable(ctx, &structs.VariablesReadRequest{Path: p})
		must.ErrorIs(t, err, ErrPermissionDenied, must.Sprintf("workload read %q", p))
	}
	_, err = s.ApplyVariable(ctx, &VariablesApplyRequest{Op: structs.VarOpSet, Var: newVar(own[3], map[string]string{"k": "v"})})
	must.ErrorIs(t, err, ErrPermissionDenied, must.Sprint("a workload wrote its variable"))

	// Over RPC, as a client agent's template renderer calls it.
	c := clientAgentRPC(t)
	var reply structs.VariablesReadResponse
	err = c.Call(t.Context(), s.RPCAddr().String(), "Variables.Read", &structs.VariablesReadRequest{
		Path: own[3], QueryOptions: structs.QueryOptions{AuthToken: jwt},
	}, &reply)
	must.NoError(t, err)
	must.Eq(t, own[3], reply.Data.Items["path"])
	err = c.Call(t.Context(), s.RPCAddr().String(), "Variables.Read", &structs.VariablesReadRequest{
		Path: "nomad/jobs/other", QueryOptions: structs.QueryOptions{AuthToken: jwt},
	}, &reply)
	must.ErrorIs(t, err, ErrPermissionDenied)
}

func slicesConcat(a, b []string) []string { return append(append([]string(nil), a...), b...) }

// TestVariables_blockingRead: a read with MinQueryIndex waits for the
// variable to change, as a template watcher does.
func TestVariables_blockingRead(t *testing.T) {
	s := varServer(t)
	ctx := testCtx(t)
	first := setVar(t, ctx, s, newVar("watch/me", map[string]string{"v": "1"}), nil)
	done := make(chan *structs.VariablesReadResponse, 1)
	go func() {
		resp, err := s.ReadVariable(ctx, &structs.VariablesReadRequest{Path: "watch/me",
			QueryOptions: structs.QueryOptions{MinQueryIndex: first.Output.ModifyIndex}})
		if err != nil {
			resp = nil
		}
		done <- resp
	}()
	setVar(t, ctx, s, newVar("watch/other", map[string]string{"v": "x"}), nil)
	second := setVar(t, ctx, s, newVar("watch/me", map[string]string{"v": "2"}), nil)
	got := <-done
	must.NotNil(t, got)
	must.Eq(t, "2", got.Data.Items["v"])
	must.Eq(t, second.Output.ModifyIndex, got.Index)
}

// TestVariables_locks: a lock keeps others from writing the variable and
// from taking it, until its holder releases it.
func TestVariables_locks(t *testing.T) {
	s := varServer(t)
	ctx := testCtx(t)
	acquire := func(items map[string]string) *VariablesApplyResponse {
		v := newVar("locked", items)
		v.Lock = &structs.VariableLock{TTL: structs.MinVariableLockTTL, LockDelay: structs.MinVariableLockTTL}
		resp, err := s.ApplyVariable(ctx, &VariablesApplyRequest{Op: structs.VarOpLockAcquire, Var: v})
		must.NoError(t, err)
		return resp
	}
	held := acquire(nil)
	must.Nil(t, held.Conflict)
	must.NotNil(t, held.Output.Lock)
	lockID := held.Output.Lock.ID
	must.MapEmpty(t, held.Output.Items)

	must.NotNil(t, acquire(nil).Conflict, must.Sprint("a held lock was taken again"))
	must.NotNil(t, setVar(t, ctx, s, newVar("locked", map[string]string{"k": "v"}), nil).Conflict)
	del, err := s.ApplyVariable(ctx, &VariablesApplyRequest{Op: structs.VarOpDelete, Var: newVar("locked", nil)})
	must.NoError(t, err)
	must.NotNil(t, del.Conflict)

	holder := newVar("locked", map[string]string{"k": "v"})
	holder.Lock = &structs.VariableLock{ID: lockID}
	written := setVar(t, ctx, s, holder, nil)
	must.Nil(t, written.Conflict)
	must.Eq(t, lockID, written.Output.Lock.ID, must.Sprint("a write by the holder kept the lock"))

	renew, err := s.ApplyVariable(ctx, &VariablesApplyRequest{Op: structs.VarOpLockRenew, Var: holder})
	must.NoError(t, err)
	must.Nil(t, renew.Conflict)
	must.Eq(t, written.Output.ModifyIndex, renew.Index)

	wrong := newVar("locked", nil)
	wrong.Lock = &structs.VariableLock{ID: structs.GenerateUUID()}
	rel, err := s.ApplyVariable(ctx, &VariablesApplyRequest{Op: structs.VarOpLockRelease, Var: wrong})
	must.NoError(t, err)
	must.NotNil(t, rel.Conflict)
	rel, err = s.ApplyVariable(ctx, &VariablesApplyRequest{Op: structs.VarOpLockRelease, Var: &structs.VariableDecrypted{
		VariableMetadata: structs.VariableMetadata{Path: "locked", Lock: &structs.VariableLock{ID: lockID}}}})
	must.NoError(t, err)
	must.Nil(t, rel.Conflict)
	must.Nil(t, rel.Output.Lock)
	must.Eq(t, "v", readVar(t, ctx, s, "locked").Items["k"], must.Sprint("the release kept the items"))
	must.Nil(t, acquire(nil).Conflict, must.Sprint("a released lock could not be taken"))

	v := newVar("locked", nil)
	v.Lock = &structs.VariableLock{TTL: structs.MinVariableLockTTL / 2}
	_, err = s.ApplyVariable(ctx, &VariablesApplyRequest{Op: structs.VarOpLockAcquire, Var: v})
	must.ErrorIs(t, err, ErrInvalidRequest)
}

// TestVariables_encryptedAtRest: the item values are in neither the raft
// log (bbolt) nor a snapshot, and variables survive a restart and a
// snapshot restore.
func TestVariables_encryptedAtRest(t *testing.T) {
	dir := t.TempDir()
	cfg := unscheduledConfig(t, "at-rest")
	cfg.DataDir, cfg.DevMode = dir, false
	s := startServer(t, cfg)
	waitForLeader(t, s)
	waitForRootKey(t, s)
	ctx := testCtx(t)
	setVar(t, ctx, s, newVar("db/creds", map[string]string{"password": secretValue}), nil)
	must.NoError(t, s.Raft().Snapshot().Error())
	setVar(t, ctx, s, newVar("db/after", map[string]string{"password": secretValue}), nil)

	var archive bytes.Buffer
	_, err := s.SnapshotSave(&archive)
	must.NoError(t, err)
	mustNotHold(t, "the snapshot archive", unpackArchive(t, archive.Bytes()))
	must.NoError(t, s.Shutdown())

	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		must.NoError(t, err)
		if !d.IsDir() {
			data, err := os.ReadFile(path)
			must.NoError(t, err)
			mustNotHold(t, path, data)
		}
		return nil
	})
	must.FileExists(t, filepath.Join(dir, "server", "raft", "raft.db"))

	cfg2 := unscheduledConfig(t, "at-rest")
	cfg2.DataDir, cfg2.DevMode = dir, false
	cfg2.RPCAddr = s.RPCAddr().(*net.TCPAddr)
	s2 := startServer(t, cfg2)
	waitForLeader(t, s2)
	waitfor.True(t, "variables restored", func() bool {
		v, err := s2.storedVariable(structs.DefaultNamespace, "db/after")
		return err == nil && v != nil
	})
	for _, p := range []string{"db/creds", "db/after"} {
		must.Eq(t, secretValue, readVar(t, testCtx(t), s2, p).Items["password"])
	}

	fresh := varServer(t)
	_, _, err = fresh.SnapshotRestore(testCtx(t), bytes.NewReader(archive.Bytes()))
	must.NoError(t, err)
	waitfor.True(t, "the restored server leads", func() bool { return fresh.IsLeader() })
	must.Eq(t, secretValue, readVar(t, testCtx(t), fresh, "db/creds").Items["password"])
}

// mustNotHold fails if data holds the secret item value.
func mustNotHold(t *testing.T, what string, data []byte) {
	t.Helper()
	must.False(t, bytes.Contains(data, []byte(secretValue)), must.Sprintf("%s holds a variable's value in clear", what))
}

// unpackArchive is the contents of a snapshot archive's files, one after
// the other.
func unpackArchive(t *testing.T, archive []byte) []byte {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	must.NoError(t, err)
	tr := tar.NewReader(gz)
	var all bytes.Buffer
	for {
		_, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		must.NoError(t, err)
		_, err = io.Copy(&all, tr)
		must.NoError(t, err)
	}
	must.Greater(t, 0, all.Len())
	return all.Bytes()
}

// TestVariables_keyringRotation: after a rotation a variable sealed by the
// old key still reads, and the old key cannot be removed until a full
// rotation re-encrypted it.
func TestVariables_keyringRotation(t *testing.T) {
	s := varServer(t)
	ctx := testCtx(t)
	first := waitForRootKey(t, s)
	setVar(t, ctx, s, newVar("rot/a", map[string]string{"k": "old"}), nil)

	rotated, err := s.RotateRootKey(ctx, &RootKeyRotateRequest{})
	must.NoError(t, err)
	must.Eq(t, "old", readVar(t, ctx, s, "rot/a").Items["k"])
	setVar(t, ctx, s, newVar("rot/b", map[string]string{"k": "new"}), nil)
	b, err := s.State().VariableByPath(nil, structs.DefaultNamespace, "rot/b")
	must.NoError(t, err)
	must.Eq(t, rotated.Key.KeyID, b.KeyID, must.Sprint("a write after the rotation used the new key"))

	_, err = s.DeleteRootKey(ctx, &RootKeyDeleteRequest{KeyID: first.KeyID, Force: true})
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, "still encrypts 1 variables")

	full, err := s.RotateRootKey(ctx, &RootKeyRotateRequest{Full: true})
	must.NoError(t, err)
	for _, p := range []string{"rot/a", "rot/b"} {
		sealed, err := s.State().VariableByPath(nil, structs.DefaultNamespace, p)
		must.NoError(t, err)
		must.Eq(t, full.Key.KeyID, sealed.KeyID, must.Sprintf("%s re-encrypted", p))
	}
	before, err := s.State().VariableByPath(nil, structs.DefaultNamespace, "rot/a")
	must.NoError(t, err)
	_, err = s.DeleteRootKey(ctx, &RootKeyDeleteRequest{KeyID: first.KeyID, Force: true})
	must.NoError(t, err)
	_, err = s.DeleteRootKey(ctx, &RootKeyDeleteRequest{KeyID: rotated.Key.KeyID, Force: true})
	must.NoError(t, err)
	a := readVar(t, ctx, s, "rot/a")
	must.Eq(t, "old", a.Items["k"])
	must.Eq(t, before.ModifyIndex, a.ModifyIndex, must.Sprint("re-encryption is not a change of the variable"))
}

// TestVariables_throughAFollower: a write made on a follower is sealed
// and applied by the leader, and every server reads it.
func TestVariables_throughAFollower(t *testing.T) {
	c := startCluster(t, func(cfg *Config) { cfg.NumSchedulers = new(0) })
	leader := c.waitForOneLeader(c.servers)
	waitForRootKey(t, leader)
	f := follower(c.servers)
	zero := uint64(0)
	resp := setVar(t, testCtx(t), f, newVar("cluster/v", map[string]string{"k": "through " + f.config.NodeName}), &zero)
	must.Nil(t, resp.Conflict)
	must.Positive(t, resp.Index)
	again := setVar(t, testCtx(t), f, newVar("cluster/v", map[string]string{"k": "again"}), &zero)
	must.NotNil(t, again.Conflict, must.Sprint("a forwarded check-and-set was not checked"))
	for _, s := range c.servers {
		must.Eq(t, "through "+f.config.NodeName, readVar(t, testCtx(t), s, "cluster/v").Items["k"])
	}
}

// TestVariables_lostLockReleasedAndRearmed: the leader releases a lock
// whose TTL and delay ran out (the timers themselves are varlock's, on a
// fake clock), and a leader that restarts arms every lock it finds, so
// that its holder can go on renewing it.
func TestVariables_lostLockReleasedAndRearmed(t *testing.T) {
	dir := t.TempDir()
	cfg := unscheduledConfig(t, "locks")
	cfg.DataDir, cfg.DevMode = dir, false
	s := startServer(t, cfg)
	waitForLeader(t, s)
	waitForRootKey(t, s)
	ctx := testCtx(t)
	acquire := func(s *Server, path string) string {
		v := newVar(path, nil)
		v.Lock = &structs.VariableLock{TTL: structs.MinVariableLockTTL, LockDelay: structs.MinVariableLockTTL}
		resp, err := s.ApplyVariable(testCtx(t), &VariablesApplyRequest{Op: structs.VarOpLockAcquire, Var: v})
		must.NoError(t, err)
		must.Nil(t, resp.Conflict)
		return resp.Output.Lock.ID
	}
	lost := acquire(s, "lost")
	kept := acquire(s, "kept")

	s.expireVariableLock(varlock.Key{Namespace: structs.DefaultNamespace, Path: "lost"}, structs.GenerateUUID())
	must.NotNil(t, readVar(t, ctx, s, "lost").Lock, must.Sprint("another lock's expiry released it"))
	s.expireVariableLock(varlock.Key{Namespace: structs.DefaultNamespace, Path: "lost"}, lost)
	must.Nil(t, readVar(t, ctx, s, "lost").Lock)

	must.NoError(t, s.Shutdown())
	cfg2 := unscheduledConfig(t, "locks")
	cfg2.DataDir, cfg2.DevMode = dir, false
	cfg2.RPCAddr = s.RPCAddr().(*net.TCPAddr)
	s2 := startServer(t, cfg2)
	waitForLeader(t, s2)
	renew := newVar("kept", nil)
	renew.Lock = &structs.VariableLock{ID: kept}
	waitfor.NoError(t, "the restarted leader to arm the lock", func() error {
		resp, err := s2.ApplyVariable(testCtx(t), &VariablesApplyRequest{Op: structs.VarOpLockRenew, Var: renew})
		switch {
		case err != nil:
			return err
		case resp.Conflict != nil:
			return errors.New("renewal refused")
		}
		return nil
	})
}
