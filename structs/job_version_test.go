package structs

import (
	"runtime"
	"testing"

	"github.com/shoenig/test/must"
)

func versionOf(id string, version, jobModifyIndex uint64) *Job {
	return &Job{Namespace: DefaultNamespace, ID: id, Version: version, CreateIndex: 1, JobModifyIndex: jobModifyIndex,
		TaskGroups: []*TaskGroup{{Name: "g"}}}
}

func TestJobVersions_ShareHandsOutTheFirstCopy(t *testing.T) {
	var v JobVersions
	first := versionOf("web", 0, 10)
	must.True(t, v.Share(first) == first)
	must.True(t, v.Share(versionOf("web", 0, 10)) == first, must.Sprint("a later copy of the version gets the first"))

	next := versionOf("web", 1, 12)
	must.True(t, v.Share(next) == next, must.Sprint("another version is a copy of its own"))
	purged := versionOf("web", 0, 10)
	purged.CreateIndex = 9
	must.True(t, v.Share(purged) == purged, must.Sprint("a job purged and registered again is another job"))
	must.Nil(t, v.Share(nil))
	made := &Job{ID: "web"}
	must.True(t, v.Share(made) == made)
	must.True(t, v.Share(&Job{ID: "web"}) != made, must.Sprint("jobs never stored have no version to share"))

	allocs := []*Allocation{{ID: "a", Job: versionOf("web", 0, 10)}, {ID: "b", Job: versionOf("web", 1, 12)}, {ID: "c"}}
	v.ShareAll(allocs)
	must.True(t, allocs[0].Job == first)
	must.True(t, allocs[1].Job == next)
	must.Nil(t, allocs[2].Job)
}

// TestJobVersions_holdsNothingAlive: a version nothing else holds is
// garbage collected, and the next copy of it handed out is the new one.
func TestJobVersions_holdsNothingAlive(t *testing.T) {
	var v JobVersions
	for i := range 100 {
		v.Share(versionOf("batch", uint64(i), uint64(i+1)))
	}
	runtime.GC()
	again := versionOf("batch", 0, 1)
	must.True(t, v.Share(again) == again)
	for i := range 100 {
		v.Share(versionOf("other", uint64(i), uint64(i+1)))
	}
	runtime.GC()
	v.Share(versionOf("last", 0, 1))
	must.Less(t, 200, v.Len(), must.Sprint("entries of collected versions are swept"))
}
