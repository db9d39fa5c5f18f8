package allocrunner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocdir"
)

func TestAllocDirHook(t *testing.T) {
	dir, err := allocdir.New(t.TempDir(), "a1")
	must.NoError(t, err)
	h := newAllocDirHook(dir, hclog.NewNullLogger())
	var _ RunnerPrerunHook = h
	var _ RunnerDestroyHook = h

	must.NoError(t, h.Prerun())
	for _, sub := range []string{"alloc", "alloc/logs", "alloc/data", "alloc/tmp"} {
		fi, err := os.Stat(filepath.Join(dir.AllocDir, sub))
		must.NoError(t, err)
		must.True(t, fi.IsDir())
	}
	// Prerun again, as after an agent restart, keeps what is there.
	marker := filepath.Join(dir.SharedDir, "data", "keep")
	must.NoError(t, os.WriteFile(marker, []byte("x"), 0o644))
	must.NoError(t, h.Prerun())
	must.FileExists(t, marker)

	must.NoError(t, h.Destroy())
	_, err = os.Stat(dir.AllocDir)
	must.True(t, os.IsNotExist(err))
}
