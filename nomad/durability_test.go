package nomad

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

func TestServer_Durability(t *testing.T) {
	cases := []struct {
		name     string
		snapshot bool
	}{
		{"log only", false},
		{"after snapshot", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := testConfig(t, "durable")
			cfg.DataDir = dir
			cfg.DevMode = false
			s, err := NewServer(cfg)
			must.NoError(t, err)
			waitForLeader(t, s)
			ctx := testCtx(t)

			reg, err := s.RegisterJob(ctx, &JobRegisterRequest{Job: testJob("example")})
			must.NoError(t, err)
			extraEval := testEval("example")
			_, err = s.UpsertEvals(ctx, []*structs.Evaluation{extraEval})
			must.NoError(t, err)
			node := testNode(structs.GenerateUUID())
			_, err = s.NodeRegister(ctx, node)
			must.NoError(t, err)
			job, err := s.State().JobByID(nil, structs.DefaultNamespace, "example")
			must.NoError(t, err)
			alloc := testAlloc(job, node.ID)
			allocIndex, err := s.Apply(ctx, logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
			must.NoError(t, err)

			if tc.snapshot {
				must.NoError(t, s.Raft().Snapshot().Error())
				// One write after the snapshot lives only in the log.
			}
			last, err := s.RegisterJob(ctx, &JobRegisterRequest{Job: testJob("after")})
			must.NoError(t, err)
			must.Greater(t, allocIndex, last.Index)

			id := s.NodeID()
			must.NoError(t, s.Shutdown())

			must.FileExists(t, filepath.Join(dir, "server", "raft", "raft.db"))
			if tc.snapshot {
				snaps, err := os.ReadDir(filepath.Join(dir, "server", "raft", "snapshots"))
				must.NoError(t, err)
				must.SliceNotEmpty(t, snaps)
			}

			cfg2 := testConfig(t, "durable")
			cfg2.DataDir = dir
			cfg2.DevMode = false
			cfg2.RPCAddr = s.RPCAddr().(*net.TCPAddr)
			s2 := startServer(t, cfg2)
			must.Eq(t, id, s2.NodeID(), must.Sprint("the node ID is kept in the data dir"))
			waitForLeader(t, s2)
			// The log is replayed once the restarted server commits in
			// its new term.
			waitfor.True(t, "state to be restored", func() bool {
				latest, err := s2.State().LatestIndex()
				return err == nil && latest >= last.Index
			})

			st := s2.State()
			for _, id := range []string{"example", "after"} {
				got, err := st.JobByID(nil, structs.DefaultNamespace, id)
				must.NoError(t, err)
				must.NotNil(t, got, must.Sprintf("job %q lost", id))
			}
			for _, id := range []string{reg.EvalID, extraEval.ID} {
				got, err := st.EvalByID(nil, id)
				must.NoError(t, err)
				must.NotNil(t, got, must.Sprintf("evaluation %q lost", id))
			}
			gotNode, err := st.NodeByID(nil, node.ID)
			must.NoError(t, err)
			must.NotNil(t, gotNode)
			gotAlloc, err := st.AllocByID(nil, alloc.ID)
			must.NoError(t, err)
			must.NotNil(t, gotAlloc)
			must.Eq(t, alloc.CreateTime, gotAlloc.CreateTime)
		})
	}
}

func TestConfig_NodeIDPersisted(t *testing.T) {
	dir := t.TempDir()
	cfg := &Config{DataDir: dir}
	id, err := cfg.loadNodeID()
	must.NoError(t, err)
	must.NotEq(t, "", id)

	again, err := cfg.loadNodeID()
	must.NoError(t, err)
	must.Eq(t, id, again)

	conflicting := &Config{DataDir: dir, NodeID: "other"}
	_, err = conflicting.loadNodeID()
	must.ErrorContains(t, err, "differs")

	explicit := &Config{DataDir: t.TempDir(), NodeID: "chosen"}
	got, err := explicit.loadNodeID()
	must.NoError(t, err)
	must.Eq(t, "chosen", got)
}

func TestServer_DevModeKeepsNothingOnDisk(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(t, "dev")
	cfg.DataDir = dir
	s := startServer(t, cfg)
	waitForLeader(t, s)
	mustRegister(t, s, testJob("example"))
	must.NoError(t, s.Shutdown())

	entries, err := os.ReadDir(dir)
	must.NoError(t, err)
	must.SliceEmpty(t, entries)
}
