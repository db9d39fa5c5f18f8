package structs

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestAllocName_roundTrip(t *testing.T) {
	cases := []struct {
		job, group string
		idx        uint
		want       string
	}{
		{"maxrun", "maxrun", 0, "maxrun.maxrun[0]"},
		{"web", "api", 12, "web.api[12]"},
		{"a[1]", "b[2]", 3, "a[1].b[2][3]"},
		{"parent/periodic-1700000000", "g", 7, "parent/periodic-1700000000.g[7]"},
	}
	for _, tc := range cases {
		name := AllocName(tc.job, tc.group, tc.idx)
		must.Eq(t, tc.want, name)

		idx, err := ParseAllocIndex(name)
		must.NoError(t, err)
		must.Eq(t, tc.idx, idx)
		must.Eq(t, tc.idx, (&Allocation{Name: name}).Index())
	}
}

func TestParseAllocIndex_rejectsMalformedNames(t *testing.T) {
	for _, name := range []string{"", "job.group", "job.group[", "job.group[]", "job.group[x]", "job.group[-1]", "job.group[1]x"} {
		_, err := ParseAllocIndex(name)
		must.Error(t, err, must.Sprint(name))
		must.Eq(t, 0, (&Allocation{Name: name}).Index())
	}
}
