package isolate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"
)

func TestSharesToWeight(t *testing.T) {
	must.Eq(t, 1, sharesToWeight(0))
	must.Eq(t, 1, sharesToWeight(2))
	must.Eq(t, 39, sharesToWeight(1024))
	must.Eq(t, 10000, sharesToWeight(262144))
	must.Eq(t, 10000, sharesToWeight(1<<40))
}

func TestEventCount(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.events")
	must.NoError(t, os.WriteFile(path, []byte("low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n"), 0o644))
	must.Eq(t, 1, eventCount(path, "oom_kill"))
	must.Eq(t, 12, eventCount(path, "max"))
	must.Eq(t, 0, eventCount(path, "absent"))
	must.Eq(t, 0, eventCount(filepath.Join(t.TempDir(), "none"), "oom_kill"))
}

func TestCreateCgroup_RefusesUnsafeNames(t *testing.T) {
	for _, name := range []string{"", ".", "..", "a/b", "../x"} {
		_, err := CreateCgroup(CgroupSpec{Name: name})
		must.ErrorContains(t, err, "invalid cgroup name")
	}
}

func TestNormalizeCap(t *testing.T) {
	for in, want := range map[string]string{"CAP_NET_ADMIN": "net_admin", "chown": "chown", " Kill ": "kill", "ALL": "all"} {
		got, err := NormalizeCap(in)
		must.NoError(t, err)
		must.Eq(t, want, got)
	}
	_, err := NormalizeCap("net_superpowers")
	must.ErrorContains(t, err, `unknown capability "net_superpowers"`)
	n, ok := capNumber("sys_admin")
	must.True(t, ok)
	must.Eq(t, 21, n)
}
