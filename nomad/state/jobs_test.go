package state

import (
	"testing"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

func TestUpsertJob_New(t *testing.T) {
	s := newStore(t)
	job := mustUpsertJob(t, s, 10, testJob("example"))

	must.Eq(t, 10, job.CreateIndex)
	must.Eq(t, 10, job.ModifyIndex)
	must.Eq(t, 10, job.JobModifyIndex)
	must.Eq(t, 0, job.Version)
	must.Eq(t, structs.JobStatusPending, job.Status)

	v0, err := s.JobByIDAndVersion(nil, job.Namespace, job.ID, 0)
	must.NoError(t, err)
	must.Eq(t, job, v0)
}

func TestUpsertJob_Invalid(t *testing.T) {
	noNamespace := testJob("example")
	noNamespace.Namespace = ""
	cases := []struct {
		name string
		job  *structs.Job
		want string
	}{
		{"nil", nil, "job is nil"},
		{"no ID", testJob(""), "job has no ID"},
		{"no namespace", noNamespace, `job "example" has no namespace`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			err := s.UpsertJob(1, tc.job)
			must.ErrorContains(t, err, tc.want)
			idx, err := s.Index(TableJobs)
			must.NoError(t, err)
			must.Eq(t, 0, idx)
		})
	}
}

func TestUpsertJob_Versioning(t *testing.T) {
	cases := []struct {
		name       string
		change     func(*structs.Job)
		newVersion bool
	}{
		{"identical re-register", func(*structs.Job) {}, false},
		{"server fields only", func(j *structs.Job) {
			j.Status = structs.JobStatusRunning
			j.StatusDescription = "set by someone"
			j.Stable = true
			j.Version = 41
			j.SubmitTime = 12345
			j.CreateIndex, j.ModifyIndex, j.JobModifyIndex = 7, 8, 9
		}, false},
		{"config number typed as int", func(j *structs.Job) {
			j.TaskGroups[0].Tasks[0].Config["exit_code"] = 0
		}, false},
		{"priority", func(j *structs.Job) { j.Priority = 70 }, true},
		{"group count", func(j *structs.Job) { j.TaskGroups[0].Count = 3 }, true},
		{"task config", func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Config["run_for"] = "2s" }, true},
		{"stop", func(j *structs.Job) { j.Stop = true }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			first := mustUpsertJob(t, s, 10, testJob("example"))

			next := testJob("example")
			tc.change(next)
			got := mustUpsertJob(t, s, 20, next)

			must.Eq(t, 10, got.CreateIndex)
			must.Eq(t, 20, got.ModifyIndex)
			versions, err := s.JobVersionsByID(nil, got.Namespace, got.ID)
			must.NoError(t, err)
			if tc.newVersion {
				must.Eq(t, 1, got.Version)
				must.Eq(t, 20, got.JobModifyIndex)
				must.Len(t, 2, versions)
				must.Eq(t, first, versions[1])
			} else {
				must.Eq(t, 0, got.Version)
				must.Eq(t, 10, got.JobModifyIndex)
				must.Len(t, 1, versions)
			}
			must.Eq(t, got, versions[0])
		})
	}
}

func TestUpsertJob_KeepsServerState(t *testing.T) {
	s := newStore(t)
	job := testJob("example")
	job.SubmitTime = 100
	mustUpsertJob(t, s, 10, job)
	must.NoError(t, s.UpdateJobStatus(11, job.Namespace, job.ID, structs.JobStatusRunning, "allocs running"))

	again := testJob("example")
	again.SubmitTime = 200
	got := mustUpsertJob(t, s, 12, again)
	must.Eq(t, structs.JobStatusRunning, got.Status)
	must.Eq(t, "allocs running", got.StatusDescription)
	must.Eq(t, 100, got.SubmitTime, must.Sprint("an identical re-register keeps the version's submit time"))

	changed := testJob("example")
	changed.Priority = 80
	changed.SubmitTime = 300
	got = mustUpsertJob(t, s, 13, changed)
	must.Eq(t, structs.JobStatusRunning, got.Status)
	must.Eq(t, 300, got.SubmitTime)
	must.Eq(t, 1, got.Version)
}

func TestUpsertJob_KeepsNewestVersions(t *testing.T) {
	s := newStore(t)
	const updates = JobTrackedVersions + 3
	for i := range updates {
		job := testJob("example")
		job.Priority = 10 + i
		mustUpsertJob(t, s, uint64(100+i), job)
	}
	// A job with a longer ID must not be mistaken for a version.
	mustUpsertJob(t, s, 200, testJob("example-2"))

	versions, err := s.JobVersionsByID(nil, structs.DefaultNamespace, "example")
	must.NoError(t, err)
	must.Len(t, JobTrackedVersions, versions)
	for i, v := range versions {
		must.Eq(t, "example", v.ID)
		must.Eq(t, uint64(updates-1-i), v.Version, must.Sprintf("versions[%d]", i))
	}

	gone, err := s.JobByIDAndVersion(nil, structs.DefaultNamespace, "example", updates-JobTrackedVersions-1)
	must.NoError(t, err)
	must.Nil(t, gone)
	kept, err := s.JobByIDAndVersion(nil, structs.DefaultNamespace, "example", updates-JobTrackedVersions)
	must.NoError(t, err)
	must.NotNil(t, kept)
}

func TestUpdateJobStatus(t *testing.T) {
	s := newStore(t)
	job := mustUpsertJob(t, s, 10, testJob("example"))

	must.NoError(t, s.UpdateJobStatus(11, job.Namespace, job.ID, structs.JobStatusDead, "done"))
	got, err := s.JobByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.Eq(t, structs.JobStatusDead, got.Status)
	must.Eq(t, "done", got.StatusDescription)
	must.Eq(t, 11, got.ModifyIndex)
	must.Eq(t, 0, got.Version)
	must.Eq(t, 10, got.JobModifyIndex)
	must.Eq(t, structs.JobStatusPending, job.Status, must.Sprint("the stored object must not change in place"))

	version, err := s.JobByIDAndVersion(nil, job.Namespace, job.ID, 0)
	must.NoError(t, err)
	must.Eq(t, got, version)

	// The same status again writes nothing.
	must.NoError(t, s.UpdateJobStatus(12, job.Namespace, job.ID, structs.JobStatusDead, "done"))
	idx, err := s.Index(TableJobs)
	must.NoError(t, err)
	must.Eq(t, 11, idx)

	err = s.UpdateJobStatus(13, job.Namespace, "missing", structs.JobStatusDead, "")
	must.ErrorIs(t, err, ErrNotFound)
	err = s.UpdateJobStatus(13, job.Namespace, job.ID, "finished", "")
	must.ErrorContains(t, err, `unknown status "finished"`)
}

func TestDeleteJob(t *testing.T) {
	s := newStore(t)
	job := mustUpsertJob(t, s, 10, testJob("example"))
	changed := testJob("example")
	changed.Priority = 99
	mustUpsertJob(t, s, 11, changed)
	other := mustUpsertJob(t, s, 12, testJob("example-other"))
	eval := testEval(job)
	must.NoError(t, s.UpsertEvals(13, []*structs.Evaluation{eval}))
	must.NoError(t, s.UpsertAllocs(14, []*structs.Allocation{testAlloc(job, eval.ID, "node-1")}))
	must.NoError(t, s.UpsertPeriodicLaunch(15, &PeriodicLaunch{ID: job.ID, Namespace: job.Namespace}))

	must.NoError(t, s.DeleteJob(20, job.Namespace, job.ID))

	got, err := s.JobByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.Nil(t, got)
	versions, err := s.JobVersionsByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.SliceEmpty(t, versions)
	launch, err := s.PeriodicLaunchByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.Nil(t, launch)

	kept, err := s.JobByID(nil, other.Namespace, other.ID)
	must.NoError(t, err)
	must.Eq(t, other, kept)
	evals, err := s.EvalsByJob(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.Len(t, 1, evals)
	allocs, err := s.AllocsByJob(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.Len(t, 1, allocs)

	// Deleting it again is not an error.
	must.NoError(t, s.DeleteJob(21, job.Namespace, job.ID))
}

func TestJobsByIDPrefix(t *testing.T) {
	s := newStore(t)
	must.NoError(t, s.UpsertNamespaces(9, []*structs.Namespace{{Name: "other"}}))
	for i, ns := range []struct{ namespace, id string }{
		{"default", "web"},
		{"default", "api-2"},
		{"default", "api"},
		{"other", "apple"},
		{"other", "api"},
	} {
		job := testJob(ns.id)
		job.Namespace = ns.namespace
		mustUpsertJob(t, s, uint64(10+i), job)
	}
	cases := []struct {
		namespace, prefix string
		want              []string // namespace/id
	}{
		{"default", "ap", []string{"default/api", "default/api-2"}},
		{"default", "api", []string{"default/api", "default/api-2"}},
		{"default", "", []string{"default/api", "default/api-2", "default/web"}},
		{"default", "x", nil},
		{"other", "app", []string{"other/apple"}},
		{"missing", "", nil},
		{AllNamespaces, "ap", []string{"default/api", "other/api", "default/api-2", "other/apple"}},
	}
	for _, tc := range cases {
		t.Run(tc.namespace+"/"+tc.prefix, func(t *testing.T) {
			jobs, err := s.JobsByIDPrefix(nil, tc.namespace, tc.prefix)
			must.NoError(t, err)
			var got []string
			for _, j := range jobs {
				got = append(got, j.Namespace+"/"+j.ID)
			}
			must.Eq(t, tc.want, got)
		})
	}

	all, err := s.Jobs(nil)
	must.NoError(t, err)
	must.Len(t, 5, all)
}

func TestJobChildren(t *testing.T) {
	s := newStore(t)
	parent := testJob("cron")
	parent.Periodic = &structs.PeriodicConfig{Enabled: true, Spec: "* * * * *", SpecType: structs.PeriodicSpecCron}
	mustUpsertJob(t, s, 10, parent)
	for i, id := range []string{"cron/periodic-100", "cron/periodic-200"} {
		child := testJob(id)
		child.ParentID = "cron"
		mustUpsertJob(t, s, uint64(11+i), child)
	}
	mustUpsertJob(t, s, 20, testJob("cron-not-a-child"))

	children, err := s.JobChildren(nil, structs.DefaultNamespace, "cron")
	must.NoError(t, err)
	must.Len(t, 2, children)
	must.Eq(t, "cron/periodic-100", children[0].ID)
	must.Eq(t, "cron/periodic-200", children[1].ID)

	none, err := s.JobChildren(nil, "other", "cron")
	must.NoError(t, err)
	must.SliceEmpty(t, none)
}
