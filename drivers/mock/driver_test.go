package mock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/beneath"
)

func newTaskConfig(t *testing.T, id string, conf map[string]any) *drivers.TaskConfig {
	t.Helper()
	dir := t.TempDir()
	return &drivers.TaskConfig{
		ID:         id,
		AllocID:    "alloc1",
		Name:       "web",
		Driver:     DriverName,
		Config:     conf,
		TaskDir:    filepath.Join(dir, "web"),
		StdoutPath: filepath.Join(dir, "alloc", "logs", "web.stdout"),
		StderrPath: filepath.Join(dir, "alloc", "logs", "web.stderr"),
	}
}

// startWeb returns a driver that has started task a/web with conf.
func startWeb(t *testing.T, conf map[string]any) *Driver {
	t.Helper()
	d := New(nil)
	_, err := d.StartTask(newTaskConfig(t, "a/web", conf))
	must.NoError(t, err)
	return d
}

// wait blocks until the task exits and returns its result.
func wait(t *testing.T, d *Driver, id string) *drivers.ExitResult {
	t.Helper()
	ch, err := d.WaitTask(context.Background(), id)
	must.NoError(t, err)
	res, ok := <-ch
	must.True(t, ok, must.Sprint("wait channel closed without a result"))
	return res
}

func TestDriver_Fingerprint(t *testing.T) {
	fp := New(nil).Fingerprint(context.Background())
	must.True(t, fp.Detected)
	must.True(t, fp.Healthy)
	must.Eq(t, "1", fp.Attributes["driver.mock_driver"])
	must.Eq(t, DriverName, New(nil).Name())
}

func TestDriver_RunFor(t *testing.T) {
	cases := []struct {
		name string
		conf map[string]any
		want drivers.ExitResult
		ran  time.Duration
	}{
		{
			name: "exit code after run_for",
			conf: map[string]any{"run_for": "10s", "exit_code": 3},
			want: drivers.ExitResult{ExitCode: 3},
			ran:  10 * time.Second,
		},
		{
			name: "absent run_for exits at once",
			conf: map[string]any{},
			want: drivers.ExitResult{},
		},
		{
			name: "exit signal by name and number",
			conf: map[string]any{"run_for": "1m", "exit_code": float64(143), "exit_signal": "SIGTERM"},
			want: drivers.ExitResult{ExitCode: 143, Signal: 15},
			ran:  time.Minute,
		},
		{
			name: "exit signal number",
			conf: map[string]any{"run_for": 1500 * int64(time.Millisecond), "exit_signal": 9},
			want: drivers.ExitResult{Signal: 9},
			ran:  1500 * time.Millisecond,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := New(nil)
				start := time.Now()
				h, err := d.StartTask(newTaskConfig(t, "a/web", tc.conf))
				must.NoError(t, err)
				must.Eq(t, drivers.TaskStateRunning, h.State)
				must.Eq(t, DriverName, h.Driver)

				res := wait(t, d, "a/web")
				must.Eq(t, tc.ran, time.Since(start))
				tc.want.ExitedAt = start.Add(tc.ran)
				must.Eq(t, tc.want, *res)

				st, err := d.InspectTask("a/web")
				must.NoError(t, err)
				must.Eq(t, drivers.TaskStateExited, st.State)
				must.Eq(t, start.Add(tc.ran), st.CompletedAt)
			})
		})
	}
}

func TestDriver_ExitErrMsg(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := startWeb(t, map[string]any{"run_for": "1s", "exit_err_msg": "boom"})
		res := wait(t, d, "a/web")
		must.EqError(t, res.Err, "boom")
		must.False(t, res.Successful())
	})
}

func TestDriver_InspectWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := startWeb(t, map[string]any{"run_for": "1h"})
		time.Sleep(time.Minute)
		st, err := d.InspectTask("a/web")
		must.NoError(t, err)
		must.Eq(t, drivers.TaskStateRunning, st.State)
		must.Nil(t, st.ExitResult)
		must.NoError(t, d.DestroyTask("a/web", true))
	})
}

func TestDriver_StartError(t *testing.T) {
	for _, recoverable := range []bool{true, false} {
		d := New(nil)
		_, err := d.StartTask(newTaskConfig(t, "a/web", map[string]any{
			"start_error":             "pull failed",
			"start_error_recoverable": recoverable,
		}))
		must.EqError(t, err, "pull failed")
		must.Eq(t, recoverable, drivers.IsRecoverable(err))
		_, err = d.InspectTask("a/web")
		must.ErrorIs(t, err, drivers.ErrTaskNotFound)
	}
}

func TestDriver_StartBlockFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := New(nil)
		start := time.Now()
		_, err := d.StartTask(newTaskConfig(t, "a/web", map[string]any{"start_block_for": "30s", "run_for": "5s"}))
		must.NoError(t, err)
		must.Eq(t, 30*time.Second, time.Since(start))
		wait(t, d, "a/web")
		must.Eq(t, 35*time.Second, time.Since(start))
	})
}

func TestDriver_StartBlockForThenStartError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := New(nil)
		start := time.Now()
		_, err := d.StartTask(newTaskConfig(t, "a/web", map[string]any{"start_block_for": "30s", "start_error": "pull failed"}))
		must.EqError(t, err, "pull failed")
		must.Eq(t, 30*time.Second, time.Since(start))
	})
}

func TestDriver_StartBlockFor_Cancelled(t *testing.T) {
	cancels := map[string]func(d *Driver, id string) error{
		"destroy": func(d *Driver, id string) error { return d.DestroyTask(id, true) },
		"destroy without force": func(d *Driver, id string) error {
			return d.DestroyTask(id, false)
		},
		"stop": func(d *Driver, id string) error { return d.StopTask(id, time.Second, "") },
	}
	for name, cancel := range cancels {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := New(nil)
				start := time.Now()
				startErr := make(chan error, 1)
				go func() {
					_, err := d.StartTask(newTaskConfig(t, "a/web", map[string]any{"start_block_for": "1h"}))
					startErr <- err
				}()
				time.Sleep(10 * time.Second)
				synctest.Wait()

				st, err := d.InspectTask("a/web")
				must.NoError(t, err)
				must.Eq(t, stateStarting, st.State)

				must.NoError(t, cancel(d, "a/web"))
				err = <-startErr
				must.ErrorIs(t, err, ErrStoppedWhileStarting)
				must.EqError(t, err, "task stopped while starting")
				must.Eq(t, 10*time.Second, time.Since(start))

				_, err = d.InspectTask("a/web")
				must.ErrorIs(t, err, drivers.ErrTaskNotFound)
			})
		})
	}
}

func TestDriver_StopTask(t *testing.T) {
	cases := []struct {
		name    string
		conf    map[string]any
		timeout time.Duration
		signal  string
		took    time.Duration
		want    drivers.ExitResult
	}{
		{
			name:    "default signal ends the task at once",
			conf:    map[string]any{"run_for": "1h"},
			timeout: 5 * time.Second,
			want:    drivers.ExitResult{ExitCode: 130, Signal: 2},
		},
		{
			name:    "given signal",
			conf:    map[string]any{"run_for": "1h"},
			timeout: 5 * time.Second,
			signal:  "SIGTERM",
			want:    drivers.ExitResult{ExitCode: 143, Signal: 15},
		},
		{
			name:    "kill_after honoured within the timeout",
			conf:    map[string]any{"run_for": "1h", "kill_after": "5s"},
			timeout: 10 * time.Second,
			signal:  "SIGTERM",
			took:    5 * time.Second,
			want:    drivers.ExitResult{ExitCode: 143, Signal: 15},
		},
		{
			name:    "kill_after cut short by SIGKILL at the timeout",
			conf:    map[string]any{"run_for": "1h", "kill_after": "30s"},
			timeout: 3 * time.Second,
			took:    3 * time.Second,
			want:    drivers.ExitResult{ExitCode: 137, Signal: 9},
		},
		{
			name:    "natural exit before kill_after",
			conf:    map[string]any{"run_for": "2s", "kill_after": "30s", "exit_code": 4},
			timeout: 10 * time.Second,
			took:    2 * time.Second,
			want:    drivers.ExitResult{ExitCode: 4},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := startWeb(t, tc.conf)
				ch, err := d.WaitTask(context.Background(), "a/web")
				must.NoError(t, err)

				start := time.Now()
				must.NoError(t, d.StopTask("a/web", tc.timeout, tc.signal))
				must.Eq(t, tc.took, time.Since(start))

				st, err := d.InspectTask("a/web")
				must.NoError(t, err)
				must.Eq(t, drivers.TaskStateExited, st.State)
				tc.want.ExitedAt = start.Add(tc.took)
				must.Eq(t, tc.want, *(<-ch))
			})
		})
	}
}

func TestDriver_StopTask_Errors(t *testing.T) {
	d := New(nil)
	must.ErrorIs(t, d.StopTask("nope", time.Second, ""), drivers.ErrTaskNotFound)

	_, err := d.StartTask(newTaskConfig(t, "a/web", map[string]any{"run_for": "1h"}))
	must.NoError(t, err)
	must.ErrorContains(t, d.StopTask("a/web", time.Second, "SIGNOPE"), `unknown signal "SIGNOPE"`)
	must.NoError(t, d.StopTask("a/web", time.Second, "SIGKILL"))
	// Stopping an exited task is a no-op.
	must.NoError(t, d.StopTask("a/web", time.Second, ""))
}

func TestDriver_StdoutRepeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := New(nil)
		cfg := newTaskConfig(t, "a/web", map[string]any{
			"run_for":                "10s",
			"stdout_string":          "hello\n",
			"stdout_repeat":          3,
			"stdout_repeat_duration": "1s",
		})
		_, err := d.StartTask(cfg)
		must.NoError(t, err)

		read := func() string {
			b, err := os.ReadFile(cfg.StdoutPath + ".0")
			must.NoError(t, err)
			return string(b)
		}
		must.Eq(t, "hello\n", read())
		time.Sleep(2500 * time.Millisecond)
		synctest.Wait()
		must.Eq(t, strings.Repeat("hello\n", 3), read())

		wait(t, d, "a/web")
		must.Eq(t, strings.Repeat("hello\n", 4), read())

		_, err = os.Stat(cfg.StderrPath + ".0")
		must.NoError(t, err)
	})
}

func TestDriver_StdoutRepeat_StopsWithTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := New(nil)
		cfg := newTaskConfig(t, "a/web", map[string]any{
			"run_for":                "2500ms",
			"stdout_string":          "x",
			"stdout_repeat":          100,
			"stdout_repeat_duration": "1s",
		})
		_, err := d.StartTask(cfg)
		must.NoError(t, err)
		wait(t, d, "a/web")
		synctest.Wait()
		b, err := os.ReadFile(cfg.StdoutPath + ".0")
		must.NoError(t, err)
		must.Eq(t, "xxx", string(b))
	})
}

func TestDriver_SignalTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := startWeb(t, map[string]any{"run_for": "1h"})

		must.NoError(t, d.SignalTask("a/web", "SIGHUP"))
		must.NoError(t, d.SignalTask("a/web", "USR1"))
		must.ErrorContains(t, d.SignalTask("a/web", "SIGWHAT"), `unknown signal "SIGWHAT"`)
		got, err := d.ReceivedSignals("a/web")
		must.NoError(t, err)
		must.Eq(t, []string{"SIGHUP", "USR1"}, got)

		st, _ := d.InspectTask("a/web")
		must.Eq(t, drivers.TaskStateRunning, st.State)

		must.NoError(t, d.SignalTask("a/web", "SIGKILL"))
		must.Eq(t, 9, wait(t, d, "a/web").Signal)
	})
}

func TestDriver_SignalError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := startWeb(t, map[string]any{"run_for": "1h", "signal_error": "no signals here"})
		must.EqError(t, d.SignalTask("a/web", "SIGHUP"), "no signals here")
		must.NoError(t, d.DestroyTask("a/web", true))
	})
}

func TestDriver_WaitTask_ContextCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := startWeb(t, map[string]any{"run_for": "1h"})

		ctx, cancel := context.WithCancel(context.Background())
		ch, err := d.WaitTask(ctx, "a/web")
		must.NoError(t, err)
		cancel()
		res, ok := <-ch
		must.False(t, ok)
		must.Nil(t, res)

		st, _ := d.InspectTask("a/web")
		must.Eq(t, drivers.TaskStateRunning, st.State)
		must.NoError(t, d.DestroyTask("a/web", true))
	})
}

func TestDriver_DestroyTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := startWeb(t, map[string]any{"run_for": "1h"})
		ch, err := d.WaitTask(context.Background(), "a/web")
		must.NoError(t, err)

		must.ErrorContains(t, d.DestroyTask("a/web", false), "still running")
		must.NoError(t, d.DestroyTask("a/web", true))
		must.Eq(t, 9, (<-ch).Signal)
		_, err = d.InspectTask("a/web")
		must.ErrorIs(t, err, drivers.ErrTaskNotFound)
		must.ErrorIs(t, d.DestroyTask("a/web", true), drivers.ErrTaskNotFound)

		// An exited task is destroyed without force.
		_, err = d.StartTask(newTaskConfig(t, "a/web", map[string]any{"run_for": "1s"}))
		must.NoError(t, err)
		wait(t, d, "a/web")
		must.NoError(t, d.DestroyTask("a/web", false))
	})
}

func TestDriver_DuplicateID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := startWeb(t, map[string]any{"run_for": "1h"})
		_, err := d.StartTask(newTaskConfig(t, "a/web", map[string]any{"run_for": "1h"}))
		must.ErrorContains(t, err, `task "a/web" already exists`)
		must.NoError(t, d.DestroyTask("a/web", true))
	})
}

func TestDriver_InvalidConfig(t *testing.T) {
	cases := []struct {
		conf map[string]any
		want []string
	}{
		{map[string]any{"run_for": "soon"}, []string{`config key "run_for"`}},
		{map[string]any{"exit_code": "3"}, []string{`config key "exit_code"`}},
		{map[string]any{"exit_signal": "SIGNOPE"}, []string{`config key "exit_signal"`, "SIGNOPE"}},
		{map[string]any{"runfor": "1s", "exit_code": true}, []string{`"runfor"`, `config key "exit_code"`}},
		{map[string]any{"stdout_repeat": -1}, []string{`config key "stdout_repeat"`}},
		{map[string]any{"kill_after": "-1s"}, []string{`config key "kill_after"`}},
	}
	for _, tc := range cases {
		_, err := New(nil).StartTask(newTaskConfig(t, "a/web", tc.conf))
		must.ErrorContains(t, err, `task "web": invalid config`)
		for _, w := range tc.want {
			must.ErrorContains(t, err, w)
		}
	}
	_, err := New(nil).StartTask(&drivers.TaskConfig{})
	must.ErrorContains(t, err, "ID is required")
}

func TestDriver_RecoverTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := New(nil)
		start := time.Now()
		h, err := d.StartTask(newTaskConfig(t, "a/web", map[string]any{"run_for": "10s", "exit_code": 7}))
		must.NoError(t, err)
		persisted := h.Copy()

		// The same driver still runs the task: recovery re-attaches and the
		// task ends at its original time.
		d.Shutdown()
		time.Sleep(4 * time.Second)
		must.NoError(t, d.RecoverTask(persisted))
		res := wait(t, d, "a/web")
		must.Eq(t, 7, res.ExitCode)
		must.Eq(t, 10*time.Second, time.Since(start))
	})
}

func TestDriver_RecoverTask_NewDriver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, err := New(nil).StartTask(newTaskConfig(t, "a/web", map[string]any{
			"run_for": "10s", "exit_code": 7, "exit_err_msg": "bad", "exit_signal": 3,
		}))
		must.NoError(t, err)
		start := h.StartedAt

		// Before the task's end a new driver cannot know it.
		time.Sleep(5 * time.Second)
		d := New(nil)
		must.ErrorContains(t, d.RecoverTask(h), `recover mock task "a/web": task is not running`)

		// Once its end has passed, it has exited with its configured result.
		time.Sleep(10 * time.Second)
		must.NoError(t, d.RecoverTask(h))
		res := wait(t, d, "a/web")
		must.Eq(t, 7, res.ExitCode)
		must.Eq(t, 3, res.Signal)
		must.EqError(t, res.Err, "bad")
		st, err := d.InspectTask("a/web")
		must.NoError(t, err)
		must.Eq(t, drivers.TaskStateExited, st.State)
		must.Eq(t, start.Add(10*time.Second), st.CompletedAt)
	})
}

func TestDriver_RecoverTask_BadHandle(t *testing.T) {
	d := New(nil)
	must.ErrorContains(t, d.RecoverTask(nil), "handle with a task config")
	err := d.RecoverTask(&drivers.TaskHandle{Config: &drivers.TaskConfig{ID: "a/web"}})
	must.ErrorContains(t, err, "no driver state")
	err = d.RecoverTask(&drivers.TaskHandle{Config: &drivers.TaskConfig{ID: "a/web"}, DriverState: []byte("nope")})
	must.True(t, err != nil && !errors.Is(err, drivers.ErrTaskNotFound))
}

// A running task, and a WaitTask on it, keep no goroutine: a client runs
// thousands of mock tasks in the memory benchmarks. Timers end them.
func TestDriver_RunningTaskKeepsNoGoroutine(t *testing.T) {
	const tasks = 200
	d := New(nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	before := runtime.NumGoroutine()
	waits := make([]<-chan *drivers.ExitResult, tasks)
	for i := range tasks {
		id := fmt.Sprintf("a%d/web", i)
		cfg := newTaskConfig(t, id, map[string]any{"run_for": "1h", "kill_after": "10ms"})
		_, err := d.StartTask(cfg)
		must.NoError(t, err)
		waits[i], err = d.WaitTask(ctx, id)
		must.NoError(t, err)
	}
	must.Less(t, before+tasks/10, runtime.NumGoroutine())

	for i := range tasks {
		must.NoError(t, d.SignalTask(fmt.Sprintf("a%d/web", i), "SIGKILL"))
		res := <-waits[i]
		must.Eq(t, 9, res.Signal)
	}
}

// TestDriver_LogsFollowNoLink: alloc/logs is the tasks' to write. A link
// left in place of the log directory is refused, and one in place of the
// log file is replaced: the file it names is not written.
func TestDriver_LogsFollowNoLink(t *testing.T) {
	host := t.TempDir()
	sentinel := filepath.Join(host, "sentinel")
	must.NoError(t, os.WriteFile(sentinel, []byte("host"), 0o640))
	conf := map[string]any{"run_for": "0s", "stdout_string": "task output\n"}

	cfg := newTaskConfig(t, "a/file", conf)
	must.NoError(t, os.MkdirAll(filepath.Dir(cfg.StdoutPath), 0o755))
	must.NoError(t, os.Symlink(sentinel, cfg.StdoutPath+".0"))
	d := New(nil)
	_, err := d.StartTask(cfg)
	must.NoError(t, err)
	wait(t, d, "a/file")
	b, err := os.ReadFile(cfg.StdoutPath + ".0")
	must.NoError(t, err)
	must.Eq(t, "task output\n", string(b))

	cfg = newTaskConfig(t, "a/dir", conf)
	must.NoError(t, os.MkdirAll(filepath.Dir(filepath.Dir(cfg.StdoutPath)), 0o755))
	must.NoError(t, os.Symlink(host, filepath.Dir(cfg.StdoutPath)))
	_, err = d.StartTask(cfg)
	must.ErrorIs(t, err, beneath.ErrSymlink)

	entries, err := os.ReadDir(host)
	must.NoError(t, err)
	must.SliceLen(t, 1, entries, must.Sprint("nothing may be made in the host directory"))
	b, err = os.ReadFile(sentinel)
	must.NoError(t, err)
	must.Eq(t, "host", string(b))
}
