package agent

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// TestFS_OnlyRegularFilesAndDirectories has a task leave in its
// allocation directory what a hostile task would: a named pipe, a hard
// link to a file outside the allocation, and a named pipe in place of its
// own log. Over the agent's HTTP API each is refused at once with its
// reason, nothing blocks or leaks, and the agent keeps answering.
func TestFS_OnlyRegularFilesAndDirectories(t *testing.T) {
	a := testClientAgent(t)
	// A file of the machine's, outside the allocation directory but on
	// the same file system (both are temporary directories), so that the
	// task can link it.
	secret := filepath.Join(t.TempDir(), "secret")
	must.NoError(t, os.WriteFile(secret, []byte("the node's, not the allocation's\n"), 0o600))

	script := strings.Join([]string{
		`mkfifo "$NOMAD_ALLOC_DIR/fifo"`,
		fmt.Sprintf(`ln %q "$NOMAD_ALLOC_DIR/stolen"`, secret),
		`echo mine > "$NOMAD_ALLOC_DIR/own"`,
		`ln "$NOMAD_ALLOC_DIR/own" "$NOMAD_ALLOC_DIR/own-again"`,
		`rm "$NOMAD_ALLOC_DIR/logs/maker.stderr.0"`,
		`mkfifo "$NOMAD_ALLOC_DIR/logs/maker.stderr.0"`,
		`echo made`,
	}, " && ")
	job := rawExecJob("hostile-files", map[string]string{"maker": script})
	alloc := placeAlloc(t, a.Server(), job, a.Client().NodeID())
	done := waitAlloc(t, a.Server(), alloc.ID, "complete", func(al *structs.Allocation) bool { return al.ClientTerminalStatus() })
	must.Eq(t, structs.AllocClientStatusComplete, done.ClientStatus, must.Sprintf("the task failed: %+v", done.TaskStates))

	// A client that keeps no connection open, so that what is open after
	// the requests is what the agent holds.
	hc := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	fetch := func(t *testing.T, path string) (int, string) {
		t.Helper()
		resp, err := hc.Get("http://" + a.HTTPAddr() + path)
		must.NoError(t, err, must.Sprintf("GET %s", path))
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		must.NoError(t, err)
		return resp.StatusCode, string(body)
	}

	fsPath := func(endpoint, rel string) string {
		return "/v1/client/fs/" + endpoint + "/" + alloc.ID + "?path=" + rel
	}
	refused := []struct {
		name string
		path string
		want string
	}{
		{"cat of a named pipe", fsPath("cat", "alloc/fifo"),
			`path "alloc/fifo" is a named pipe (FIFO): only regular files and directories can be read`},
		{"cat of a hard link to a file outside", fsPath("cat", "alloc/stolen"),
			`path "alloc/stolen" is a hard link to a file outside the allocation directory (2 links, 1 of them inside it)`},
		{"a log that is a named pipe", "/v1/client/fs/logs/" + alloc.ID + "?task=maker&type=stderr&plain=true",
			`path "alloc/logs/maker.stderr.0" is a named pipe (FIFO): only regular files and directories can be read`},
		{"a followed log that is a named pipe", "/v1/client/fs/logs/" + alloc.ID + "?task=maker&type=stderr&follow=true",
			`path "alloc/logs/maker.stderr.0" is a named pipe (FIFO): only regular files and directories can be read`},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			code, body := fetch(t, tc.path)
			must.Eq(t, http.StatusBadRequest, code, must.Sprint(body))
			must.Eq(t, tc.want+"\n", body)
		})
	}

	t.Run("what stays readable", func(t *testing.T) {
		code, body := fetch(t, fsPath("cat", "alloc/own-again"))
		must.Eq(t, http.StatusOK, code, must.Sprint(body))
		must.Eq(t, "mine\n", body, must.Sprint("a hard link whose every link is inside the allocation is served"))

		code, body = fetch(t, "/v1/client/fs/logs/"+alloc.ID+"?task=maker&type=stdout&plain=true")
		must.Eq(t, http.StatusOK, code, must.Sprint(body))
		must.Eq(t, "made\n", body)

		// Listing and stat describe the pipe without opening it.
		code, body = fetch(t, fsPath("ls", "alloc"))
		must.Eq(t, http.StatusOK, code, must.Sprint(body))
		var entries []allocFileInfo
		must.NoError(t, json.Unmarshal([]byte(body), &entries))
		modes := map[string]string{}
		for _, e := range entries {
			modes[e.Name] = e.FileMode
		}
		must.StrHasPrefix(t, "p", modes["fifo"], must.Sprint(modes))

		code, body = fetch(t, fsPath("ls", "alloc/fifo"))
		must.Eq(t, http.StatusOK, code, must.Sprint(body))
		must.StrContains(t, body, `"Name":"fifo"`)

		code, body = fetch(t, fsPath("stat", "alloc/fifo"))
		must.Eq(t, http.StatusOK, code, must.Sprint(body))
		must.StrContains(t, body, `"FileMode":"prw`)
	})

	t.Run("no goroutine or descriptor is left behind", func(t *testing.T) {
		paths := make([]string, 0, len(refused)+1)
		for _, tc := range refused {
			paths = append(paths, tc.path)
		}
		paths = append(paths, fsPath("ls", "alloc/fifo"))
		round := func() {
			for _, p := range paths {
				code, body := fetch(t, p)
				must.Less(t, 500, code, must.Sprint(body))
			}
		}
		round() // warm up: lazily started parts of the agent start now
		settled := func() (int, int) {
			runtime.GC()
			return runtime.NumGoroutine(), openFDs(t)
		}
		goroutines, fds := settled()

		const rounds = 20
		for range rounds {
			round()
		}
		// Each refused request that leaked would leave one goroutine and
		// one descriptor: rounds × len(paths) of each. Connections close
		// a little after their requests, so wait for the counts to settle.
		const slack = 8
		waitfor.NoError(t, "goroutines and descriptors back to their count", func() error {
			g, f := settled()
			if g > goroutines+slack || f > fds+slack {
				return fmt.Errorf("goroutines %d (were %d), open descriptors %d (were %d), after %d requests",
					g, goroutines, f, fds, rounds*len(paths))
			}
			return nil
		})
	})

	code, body := fetch(t, "/v1/agent/self")
	must.Eq(t, http.StatusOK, code, must.Sprint(body))
}

// openFDs counts the descriptors this process has open.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	must.NoError(t, err)
	return len(entries)
}
