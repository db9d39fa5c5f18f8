package taskrunner

import (
	"context"
	"os"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/structs"
)

func TestTaskDirHook(t *testing.T) {
	ad, err := allocdir.New(t.TempDir(), "a1")
	must.NoError(t, err)
	must.NoError(t, ad.Build())
	td, err := ad.TaskDir("web")
	must.NoError(t, err)

	var events []*structs.TaskEvent
	req := &prestartRequest{TaskDir: td, Emit: func(ev *structs.TaskEvent) { events = append(events, ev) }}
	done, err := taskDirHook{}.Prestart(context.Background(), req)
	must.NoError(t, err)
	must.False(t, done, must.Sprint("the directory is checked before every run"))
	must.Len(t, 1, events)
	must.Eq(t, structs.TaskSetup, events[0].Type)
	must.Eq(t, "Building Task Directory", events[0].DisplayMessage)
	fi, err := os.Stat(td.SecretsDir)
	must.NoError(t, err)
	must.Eq(t, os.FileMode(0o700), fi.Mode().Perm())

	// A directory removed between runs comes back.
	must.NoError(t, os.RemoveAll(td.LocalDir))
	_, err = taskDirHook{}.Prestart(context.Background(), req)
	must.NoError(t, err)
	must.DirExists(t, td.LocalDir)
}
