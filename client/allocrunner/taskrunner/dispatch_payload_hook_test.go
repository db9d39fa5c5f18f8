package taskrunner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/beneath"
	"github.com/drover-io/drover/structs"
)

func payloadRequest(t *testing.T, file string) *prestartRequest {
	t.Helper()
	req := identityRequest(t, nil)
	if file != "" {
		req.Task.DispatchPayload = &structs.DispatchPayloadConfig{File: file}
	}
	return req
}

func TestDispatchPayloadHook_writesTheFile(t *testing.T) {
	for _, file := range []string{"input.json", "in/deep/input.json", "./in/../input.json"} {
		t.Run(file, func(t *testing.T) {
			req := payloadRequest(t, file)
			done, err := dispatchPayloadHook{payload: []byte(`{"n": 1}`)}.Prestart(t.Context(), req)
			must.NoError(t, err)
			must.True(t, done, must.Sprint("the payload is written once"))
			got, err := os.ReadFile(filepath.Join(req.TaskDir.LocalDir, file))
			must.NoError(t, err)
			must.Eq(t, `{"n": 1}`, string(got))
			fi, err := os.Stat(filepath.Join(req.TaskDir.LocalDir, file))
			must.NoError(t, err)
			must.Eq(t, os.FileMode(dispatchPayloadFileMode), fi.Mode().Perm())
			// No temporary file is left beside it.
			entries, err := os.ReadDir(filepath.Dir(filepath.Join(req.TaskDir.LocalDir, file)))
			must.NoError(t, err)
			must.Len(t, 1, entries)
		})
	}
}

func TestDispatchPayloadHook_nothingToWrite(t *testing.T) {
	// No block: no file, whatever the payload.
	req := payloadRequest(t, "")
	done, err := dispatchPayloadHook{payload: []byte("x")}.Prestart(t.Context(), req)
	must.NoError(t, err)
	must.True(t, done)
	// A block and no payload (payload = "optional"): no file, as Nomad.
	req = payloadRequest(t, "in.txt")
	done, err = dispatchPayloadHook{}.Prestart(t.Context(), req)
	must.NoError(t, err)
	must.True(t, done)
	_, err = os.Stat(filepath.Join(req.TaskDir.LocalDir, "in.txt"))
	must.ErrorIs(t, err, os.ErrNotExist)
}

func TestDispatchPayloadHook_linksAreNotFollowed(t *testing.T) {
	host := t.TempDir()
	// local/ itself replaced by a link out.
	req := payloadRequest(t, "in.txt")
	must.NoError(t, os.RemoveAll(req.TaskDir.LocalDir))
	must.NoError(t, os.Symlink(host, req.TaskDir.LocalDir))
	done, err := dispatchPayloadHook{payload: []byte("secret")}.Prestart(t.Context(), req)
	must.ErrorIs(t, err, beneath.ErrSymlink)
	must.False(t, done)

	// A directory on the way is a link out.
	req = payloadRequest(t, "sub/in.txt")
	must.NoError(t, os.Symlink(host, filepath.Join(req.TaskDir.LocalDir, "sub")))
	_, err = dispatchPayloadHook{payload: []byte("secret")}.Prestart(t.Context(), req)
	must.ErrorIs(t, err, beneath.ErrSymlink)

	// The file itself is a link out: it is replaced, its target untouched.
	target := filepath.Join(host, "target")
	must.NoError(t, os.WriteFile(target, []byte("host"), 0o600))
	req = payloadRequest(t, "in.txt")
	must.NoError(t, os.Symlink(target, filepath.Join(req.TaskDir.LocalDir, "in.txt")))
	_, err = dispatchPayloadHook{payload: []byte("secret")}.Prestart(t.Context(), req)
	must.NoError(t, err)
	got, err := os.ReadFile(target)
	must.NoError(t, err)
	must.Eq(t, "host", string(got))

	entries, err := os.ReadDir(host)
	must.NoError(t, err)
	must.Len(t, 1, entries, must.Sprint("nothing may be written through a link"))
}
