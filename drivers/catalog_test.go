package drivers

import (
	"context"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// namedDriver is a Driver that only has a name and a fingerprint.
type namedDriver struct {
	name     string
	shutdown bool
}

func (d *namedDriver) Name() string { return d.name }
func (d *namedDriver) Fingerprint(context.Context) *Fingerprint {
	return &Fingerprint{Detected: true, Attributes: map[string]string{"driver." + d.name: "1"}}
}
func (d *namedDriver) StartTask(*TaskConfig) (*TaskHandle, error) { return nil, ErrTaskNotFound }
func (d *namedDriver) WaitTask(context.Context, string) (<-chan *ExitResult, error) {
	return nil, ErrTaskNotFound
}
func (d *namedDriver) StopTask(string, time.Duration, string) error { return ErrTaskNotFound }
func (d *namedDriver) SignalTask(string, string) error              { return ErrTaskNotFound }
func (d *namedDriver) RecoverTask(*TaskHandle) error                { return ErrTaskNotFound }
func (d *namedDriver) InspectTask(string) (*TaskStatus, error)      { return nil, ErrTaskNotFound }
func (d *namedDriver) DestroyTask(string, bool) error               { return ErrTaskNotFound }
func (d *namedDriver) Shutdown()                                    { d.shutdown = true }

func TestCatalog(t *testing.T) {
	a, b := &namedDriver{name: "raw_exec"}, &namedDriver{name: "mock_driver"}
	c := NewCatalog(a, b)

	got, ok := c.Lookup("raw_exec")
	must.True(t, ok)
	must.Eq(t, Driver(a), got)
	_, ok = c.Lookup("docker")
	must.False(t, ok)
	must.Eq(t, []string{"mock_driver", "raw_exec"}, c.Names())

	fps := c.Fingerprint(context.Background())
	must.MapLen(t, 2, fps)
	must.Eq(t, "1", fps["mock_driver"].Attributes["driver.mock_driver"])

	c.Shutdown()
	must.True(t, a.shutdown)
	must.True(t, b.shutdown)
}
