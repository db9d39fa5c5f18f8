package state

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// implementations runs a test against every StateDB.
func implementations(t *testing.T, test func(t *testing.T, db StateDB)) {
	t.Run("bolt", func(t *testing.T) {
		db, err := OpenBoltStateDB(nil, t.TempDir())
		must.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		test(t, db)
	})
	t.Run("mem", func(t *testing.T) {
		test(t, NewMemDB())
	})
}

func testAlloc(id string) *structs.Allocation {
	d := 90 * time.Second
	return &structs.Allocation{
		ID:           id,
		Namespace:    "default",
		JobID:        "example",
		TaskGroup:    "web",
		ClientStatus: structs.AllocClientStatusRunning,
		CreateTime:   time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC).UnixNano(),
		Job: &structs.Job{
			ID:   "example",
			Type: structs.JobTypeBatch,
			TaskGroups: []*structs.TaskGroup{{
				Name:           "web",
				MaxRunDuration: &d,
				Tasks: []*structs.Task{{
					Name:   "server",
					Driver: "mock_driver",
					Config: map[string]any{"run_for": "10s"},
				}},
			}},
		},
	}
}

func TestStateDB_Allocations(t *testing.T) {
	implementations(t, func(t *testing.T, db StateDB) {
		allocs, errs, err := db.GetAllAllocations()
		must.NoError(t, err)
		must.SliceEmpty(t, allocs)
		must.MapEmpty(t, errs)

		must.NoError(t, db.PutAllocation(testAlloc("a1")))
		must.NoError(t, db.PutAllocation(testAlloc("a2")))
		updated := testAlloc("a1")
		updated.ClientStatus = structs.AllocClientStatusComplete
		must.NoError(t, db.PutAllocation(updated))

		allocs, errs, err = db.GetAllAllocations()
		must.NoError(t, err)
		must.MapEmpty(t, errs)
		must.Len(t, 2, allocs)
		byID := map[string]*structs.Allocation{}
		for _, a := range allocs {
			byID[a.ID] = a
		}
		must.Eq(t, structs.AllocClientStatusComplete, byID["a1"].ClientStatus)
		must.Eq(t, testAlloc("a2").CreateTime, byID["a2"].CreateTime)
		must.Eq(t, 90*time.Second, *byID["a2"].Job.TaskGroups[0].MaxRunDuration)
		must.Eq(t, "10s", byID["a2"].Job.TaskGroups[0].Tasks[0].Config["run_for"])

		must.NoError(t, db.DeleteAllocationBucket("a1"))
		must.NoError(t, db.DeleteAllocationBucket("never-stored"))
		allocs, _, err = db.GetAllAllocations()
		must.NoError(t, err)
		must.Len(t, 1, allocs)
		must.Eq(t, "a2", allocs[0].ID)
	})
}

func TestStateDB_PutAllocationRejectsMissingID(t *testing.T) {
	implementations(t, func(t *testing.T, db StateDB) {
		must.Error(t, db.PutAllocation(&structs.Allocation{}))
		must.Error(t, db.PutAllocation(nil))
	})
}

func TestStateDB_AllocRunnerState(t *testing.T) {
	implementations(t, func(t *testing.T, db StateDB) {
		got, err := db.GetAllocRunnerState("a1")
		must.NoError(t, err)
		must.Nil(t, got)

		must.NoError(t, db.PutAllocRunnerState("a1", &AllocRunnerState{KillReason: KillReasonMaxRunDuration}))
		got, err = db.GetAllocRunnerState("a1")
		must.NoError(t, err)
		must.Eq(t, KillReasonMaxRunDuration, got.KillReason)

		// Runner state alone is not an allocation record.
		_, errs, err := db.GetAllAllocations()
		must.NoError(t, err)
		must.MapContainsKey(t, errs, "a1")

		must.NoError(t, db.DeleteAllocationBucket("a1"))
		got, err = db.GetAllocRunnerState("a1")
		must.NoError(t, err)
		must.Nil(t, got)
	})
}

func TestStateDB_TaskRunnerState(t *testing.T) {
	implementations(t, func(t *testing.T, db StateDB) {
		local, ts, err := db.GetTaskRunnerState("a1", "web")
		must.NoError(t, err)
		must.Nil(t, local)
		must.Nil(t, ts)

		started := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		handle := &drivers.TaskHandle{
			Version: 1,
			Driver:  "mock_driver",
			Config: &drivers.TaskConfig{
				ID:         "a1/web/1",
				Name:       "web",
				StdoutPath: "/data/alloc/logs/web.stdout",
				Env:        map[string]string{"NOMAD_TASK_NAME": "web"},
			},
			State:       drivers.TaskStateRunning,
			DriverState: []byte(`{"pid":42}`),
			StartedAt:   started,
		}
		wantLocal := &TaskRunnerLocalState{
			Hooks:              map[string]*HookState{"artifacts": {PrestartDone: true, Data: map[string]string{"k": "v"}}},
			TaskHandle:         handle,
			RestartCount:       2,
			RestartWindowStart: started.UnixNano(),
		}
		wantState := &structs.TaskState{
			State:     structs.TaskStateRunning,
			Restarts:  2,
			StartedAt: started,
			Events:    []*structs.TaskEvent{{Type: structs.TaskStarted, Time: started.UnixNano()}},
		}
		must.NoError(t, db.PutTaskRunnerState("a1", "web", wantLocal, wantState))

		local, ts, err = db.GetTaskRunnerState("a1", "web")
		must.NoError(t, err)
		must.Eq(t, wantLocal.Hooks, local.Hooks)
		must.Eq(t, wantLocal.RestartCount, local.RestartCount)
		must.Eq(t, "a1/web/1", local.TaskHandle.Config.ID)
		must.Eq(t, `{"pid":42}`, string(local.TaskHandle.DriverState))
		must.True(t, started.Equal(local.TaskHandle.StartedAt))
		must.Eq(t, structs.TaskStateRunning, ts.State)
		must.Eq(t, uint64(2), ts.Restarts)
		must.Eq(t, structs.TaskStarted, ts.Events[0].Type)

		// A nil argument keeps what is stored.
		dead := wantState.Copy()
		dead.State = structs.TaskStateDead
		must.NoError(t, db.PutTaskRunnerState("a1", "web", nil, dead))
		local, ts, err = db.GetTaskRunnerState("a1", "web")
		must.NoError(t, err)
		must.NotNil(t, local.TaskHandle)
		must.Eq(t, structs.TaskStateDead, ts.State)

		// Other tasks and allocations are separate.
		local, ts, err = db.GetTaskRunnerState("a1", "other")
		must.NoError(t, err)
		must.Nil(t, local)
		must.Nil(t, ts)
		local, _, err = db.GetTaskRunnerState("a2", "web")
		must.NoError(t, err)
		must.Nil(t, local)
	})
}

func TestStateDB_ReturnsCopies(t *testing.T) {
	implementations(t, func(t *testing.T, db StateDB) {
		local := &TaskRunnerLocalState{Hooks: map[string]*HookState{"h": {Data: map[string]string{"k": "v"}}}}
		must.NoError(t, db.PutTaskRunnerState("a1", "web", local, nil))
		local.Hooks["h"].Data["k"] = "changed"

		got, _, err := db.GetTaskRunnerState("a1", "web")
		must.NoError(t, err)
		must.Eq(t, "v", got.Hooks["h"].Data["k"])
	})
}

func TestAllocRunnerState_JSON(t *testing.T) {
	cases := []struct {
		name    string
		encoded string
		want    AllocRunnerState
	}{
		{name: "no kill", encoded: `{}`},
		{name: "a kill reason", encoded: `{"KillReason":"stopped"}`, want: AllocRunnerState{KillReason: KillReasonStopped}},
		{name: "a reason of a newer agent", encoded: `{"KillReason":"lost"}`, want: AllocRunnerState{KillReason: "lost"}},
		{name: "old layout, exceeded", encoded: `{"MaxRunDurationExceeded":true}`, want: AllocRunnerState{KillReason: KillReasonMaxRunDuration}},
		{name: "old layout, not exceeded", encoded: `{"MaxRunDurationExceeded":false}`},
		{name: "a reason wins over the old bool", encoded: `{"KillReason":"destroyed","MaxRunDurationExceeded":true}`,
			want: AllocRunnerState{KillReason: KillReasonDestroyed}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got AllocRunnerState
			must.NoError(t, json.Unmarshal([]byte(tc.encoded), &got))
			must.Eq(t, tc.want, got)
		})
	}

	for want, s := range map[string]AllocRunnerState{
		`{}`:                                {},
		`{"KillReason":"max_run_duration"}`: {KillReason: KillReasonMaxRunDuration},
	} {
		b, err := json.Marshal(s)
		must.NoError(t, err)
		must.Eq(t, want, string(b))
	}

	var s AllocRunnerState
	must.ErrorContains(t, json.Unmarshal([]byte(`{"KillReason":7}`), &s), "cannot unmarshal")
}
