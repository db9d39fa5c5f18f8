package lazylog

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"
)

func parent(buf *bytes.Buffer, level hclog.Level) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "agent", Level: level, Output: buf, DisableTime: true})
}

func TestLogger_WritesAsNamedWith(t *testing.T) {
	var buf bytes.Buffer
	z := New(parent(&buf, hclog.Info), "alloc_runner", "alloc_id", "a1")
	z.Info("started", "task", "web")
	z.Named("hook").With("n", 2).Warn("slow")
	must.Eq(t, "[INFO]  agent.alloc_runner: started: alloc_id=a1 task=web\n"+
		"[WARN]  agent.alloc_runner.hook: slow: alloc_id=a1 n=2\n", buf.String())
	must.Eq(t, "agent.alloc_runner", z.Name())
	must.Eq(t, []any{"alloc_id", "a1"}, z.ImpliedArgs())
}

// A logger that logs nothing above its parent's level is never made.
func TestLogger_MadeOnlyWhenALineIsWritten(t *testing.T) {
	var buf bytes.Buffer
	z := New(parent(&buf, hclog.Info), "task_runner", "task", "web")
	z.Debug("quiet")
	z.Trace("quieter")
	must.False(t, z.IsDebug())
	must.True(t, z.IsInfo())
	must.Eq(t, hclog.Info, z.GetLevel())
	must.Nil(t, z.made.Load(), must.Sprint("nothing was written: no logger made"))
	must.Eq(t, "", buf.String())

	z.Error("loud")
	must.NotNil(t, z.made.Load())
	must.True(t, strings.HasPrefix(buf.String(), "[ERROR] agent.task_runner: loud: task=web"))

	z.SetLevel(hclog.Debug)
	z.Debug("now heard")
	must.StrContains(t, buf.String(), "now heard")
}

func TestLogger_ConcurrentFirstUse(t *testing.T) {
	var buf safeBuffer
	z := New(hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Info}), "x")
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() { z.Info("line") })
	}
	wg.Wait()
	must.Eq(t, 20, strings.Count(buf.String(), "line"))
}

type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
