package structs

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func gcTestJob() *Job {
	j := &Job{
		ID: "p", Name: "p", Type: JobTypeBatch, Namespace: DefaultNamespace, Region: DefaultRegion,
		Datacenters: []string{"dc1"}, Priority: DefaultPriority, NodePool: DefaultNodePool,
		Periodic: &PeriodicConfig{Enabled: true, Spec: "* * * * *", SpecType: PeriodicSpecCron, TimeZone: "UTC"},
		TaskGroups: []*TaskGroup{{Name: "g", Count: 1, Tasks: []*Task{{
			Name: "t", Driver: "raw_exec", Config: map[string]any{"command": "/bin/true"},
		}}}},
	}
	j.Canonicalize()
	return j
}

// TestValidateGC refuses each bad garbage collection or overlap setting,
// naming it.
func TestValidateGC(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Job)
		want   string
	}{
		{"negative ttl", func(j *Job) { j.TTLAfterFinished = -time.Second }, "ttl_after_finished must not be negative"},
		{"unknown overlap", func(j *Job) { j.Periodic.Overlap = "queue" }, `overlap must be "skip", "allow" or "replace", not "queue"`},
		{"prohibit with replace", func(j *Job) { j.Periodic.ProhibitOverlap, j.Periodic.Overlap = true, "replace" }, "conflicts with overlap"},
		{"negative keep_last", func(j *Job) { j.Periodic.KeepLast = -1 }, "keep_last must be between 0 and 1000"},
		{"huge keep_last", func(j *Job) { j.Periodic.KeepLast = 1001 }, "keep_last must be between 0 and 1000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := gcTestJob()
			c.mutate(j)
			must.ErrorContains(t, j.Validate(), c.want)
		})
	}
	ok := gcTestJob()
	ok.TTLAfterFinished = time.Hour
	ok.Periodic.Overlap, ok.Periodic.KeepLast = PeriodicOverlapSkip, 3
	ok.Periodic.ProhibitOverlap = true
	must.NoError(t, ok.Validate())
}

// TestOverlapPolicy: overlap wins, else prohibit_overlap means skip,
// else allow.
func TestOverlapPolicy(t *testing.T) {
	must.Eq(t, PeriodicOverlapAllow, (*PeriodicConfig)(nil).OverlapPolicy())
	must.Eq(t, PeriodicOverlapAllow, (&PeriodicConfig{}).OverlapPolicy())
	must.Eq(t, PeriodicOverlapSkip, (&PeriodicConfig{ProhibitOverlap: true}).OverlapPolicy())
	must.Eq(t, PeriodicOverlapReplace, (&PeriodicConfig{Overlap: "replace"}).OverlapPolicy())
}

// TestTTLExpired at its instant.
func TestTTLExpired(t *testing.T) {
	finished := time.Unix(1000, 0)
	j := &Job{}
	set, _ := j.TTLExpired(finished, finished.Add(time.Hour))
	must.False(t, set)
	j.TTLAfterFinished = time.Minute
	_, expired := j.TTLExpired(finished, finished.Add(time.Minute-1))
	must.False(t, expired)
	_, expired = j.TTLExpired(finished, finished.Add(time.Minute))
	must.True(t, expired)
}
