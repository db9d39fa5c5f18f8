package drivertest

import (
	"context"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
)

// WaitResult waits up to timeout for the task to exit, and returns its
// exit result.
func WaitResult(t *testing.T, d drivers.Driver, id string, timeout time.Duration) *drivers.ExitResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ch, err := d.WaitTask(ctx, id)
	must.NoError(t, err)
	res, ok := <-ch
	must.True(t, ok, must.Sprintf("task %s did not exit within %s", id, timeout))
	return res
}
