package dockertest

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/shoenig/test/must"
)

func TestMain(m *testing.M) {
	code := m.Run()
	RemoveTestApp()
	if code != 0 {
		panic(code)
	}
}

// TestPushedImageRuns checks the whole chain a docker driver test relies
// on: an image built here, pushed to the in-process registry, pulled by
// the engine, runs testapp.
func TestPushedImageRuns(t *testing.T) {
	c := Engine(t)
	reg := NewRegistry(t)
	img := PushImage(t, reg, ImageOptions{Cmd: []string{"print", "hello"}})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pull, err := c.ImagePull(ctx, img.Ref, client.ImagePullOptions{})
	must.NoError(t, err)
	must.NoError(t, pull.Wait(ctx))

	created, err := c.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config: &container.Config{Image: img.Ref, Labels: map[string]string{TestLabel: "1"}},
	})
	must.NoError(t, err)
	_, err = c.ContainerStart(ctx, created.ID, client.ContainerStartOptions{})
	must.NoError(t, err)
	wait := c.ContainerWait(ctx, created.ID, client.ContainerWaitOptions{})
	select {
	case res := <-wait.Result:
		must.Eq(t, 0, res.StatusCode)
	case err := <-wait.Error:
		t.Fatal(err)
	}
	logs, err := c.ContainerLogs(ctx, created.ID, client.ContainerLogsOptions{ShowStdout: true})
	must.NoError(t, err)
	var out, errOut stringWriter
	_, err = stdcopy.StdCopy(&out, &errOut, logs)
	must.NoError(t, err)
	must.Eq(t, "hello\n", out.String())
	logs.Close()
	var _ io.Writer = &out
}

type stringWriter struct{ b []byte }

func (w *stringWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
func (w *stringWriter) String() string              { return string(w.b) }
