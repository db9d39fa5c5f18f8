package state

import (
	"testing"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

func TestUpsertEvals(t *testing.T) {
	s := newStore(t)
	job := testJob("example")
	first, second := testEval(job), testEval(job)
	must.NoError(t, s.UpsertEvals(10, []*structs.Evaluation{first, second}))

	got, err := s.EvalByID(nil, first.ID)
	must.NoError(t, err)
	must.Eq(t, 10, got.CreateIndex)
	must.Eq(t, 10, got.ModifyIndex)

	update := *first
	update.Status = structs.EvalStatusComplete
	update.QueuedAllocations = map[string]int{"web": 1}
	update.CreateIndex, update.CreateTime = 0, 0
	update.ModifyTime = 1_800_000_000_000_000_000
	must.NoError(t, s.UpsertEvals(20, []*structs.Evaluation{&update}))

	got, err = s.EvalByID(nil, first.ID)
	must.NoError(t, err)
	must.Eq(t, structs.EvalStatusComplete, got.Status)
	must.Eq(t, 10, got.CreateIndex)
	must.Eq(t, 20, got.ModifyIndex)
	must.Eq(t, first.CreateTime, got.CreateTime)
	must.Eq(t, 1_800_000_000_000_000_000, got.ModifyTime)

	byJob, err := s.EvalsByJob(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.Len(t, 2, byJob)

	all, err := s.Evals(nil)
	must.NoError(t, err)
	must.Len(t, 2, all)

	missing, err := s.EvalByID(nil, "no-such-eval")
	must.NoError(t, err)
	must.Nil(t, missing)
}

func TestUpsertEvals_Invalid(t *testing.T) {
	s := newStore(t)
	noJob := testEval(testJob("example"))
	noJob.JobID = ""
	err := s.UpsertEvals(1, []*structs.Evaluation{testEval(testJob("fine")), noJob})
	must.ErrorContains(t, err, "upsert evaluation 1")
	must.ErrorContains(t, err, "has no job ID")
	all, err := s.Evals(nil)
	must.NoError(t, err)
	must.SliceEmpty(t, all, must.Sprint("a rejected batch stores nothing"))
}

func TestEvalsByIDPrefix(t *testing.T) {
	s := newStore(t)
	inDefault := testEval(testJob("a"))
	inDefault.ID = "aaaa-1"
	alsoDefault := testEval(testJob("b"))
	alsoDefault.ID = "aabb-2"
	otherJob := testJob("c")
	otherJob.Namespace = "other"
	inOther := testEval(otherJob)
	inOther.ID = "aaaa-3"
	must.NoError(t, s.UpsertEvals(10, []*structs.Evaluation{inDefault, alsoDefault, inOther}))

	cases := []struct {
		namespace, prefix string
		want              []string
	}{
		{"default", "aa", []string{"aaaa-1", "aabb-2"}},
		{"default", "aaaa", []string{"aaaa-1"}},
		{"other", "aa", []string{"aaaa-3"}},
		{AllNamespaces, "aaaa", []string{"aaaa-1", "aaaa-3"}},
		{AllNamespaces, "b", nil},
	}
	for _, tc := range cases {
		t.Run(tc.namespace+"/"+tc.prefix, func(t *testing.T) {
			evals, err := s.EvalsByIDPrefix(nil, tc.namespace, tc.prefix)
			must.NoError(t, err)
			var got []string
			for _, e := range evals {
				got = append(got, e.ID)
			}
			must.Eq(t, tc.want, got)
		})
	}
}

func TestDeleteEvals(t *testing.T) {
	s := newStore(t)
	job := mustUpsertJob(t, s, 5, testJob("example"))
	gone, kept := testEval(job), testEval(job)
	must.NoError(t, s.UpsertEvals(10, []*structs.Evaluation{gone, kept}))
	goneAlloc, keptAlloc := testAlloc(job, gone.ID, "node-1"), testAlloc(job, kept.ID, "node-1")
	must.NoError(t, s.UpsertAllocs(11, []*structs.Allocation{goneAlloc, keptAlloc}))

	must.NoError(t, s.DeleteEvals(20, []string{gone.ID, "no-such-eval"}, []string{goneAlloc.ID, "no-such-alloc"}))

	evals, err := s.Evals(nil)
	must.NoError(t, err)
	must.Len(t, 1, evals)
	must.Eq(t, kept.ID, evals[0].ID)
	allocs, err := s.Allocs(nil)
	must.NoError(t, err)
	must.Len(t, 1, allocs)
	must.Eq(t, keptAlloc.ID, allocs[0].ID)
	byEval, err := s.AllocsByEval(nil, gone.ID)
	must.NoError(t, err)
	must.SliceEmpty(t, byEval)
}
