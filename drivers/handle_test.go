package drivers

import (
	"errors"
	"fmt"
	"testing"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

func TestTaskHandle_DriverState(t *testing.T) {
	type state struct{ Pid int }
	h := &TaskHandle{Config: &TaskConfig{ID: "a/t"}}

	var got state
	must.ErrorContains(t, h.GetDriverState(&got), `task handle for "a/t" has no driver state`)

	must.NoError(t, h.SetDriverState(state{Pid: 42}))
	must.NoError(t, h.GetDriverState(&got))
	must.Eq(t, 42, got.Pid)

	h.DriverState = []byte("{")
	must.ErrorContains(t, h.GetDriverState(&got), `decode driver state of task "a/t"`)
}

func TestTaskHandle_Copy(t *testing.T) {
	h := &TaskHandle{
		Version:     1,
		Config:      &TaskConfig{ID: "a/t", Env: map[string]string{"A": "1"}, Resources: &structs.Resources{CPU: 100}},
		DriverState: []byte(`{}`),
	}
	c := h.Copy()
	c.Config.Env["A"] = "2"
	c.Config.Resources.CPU = 5
	c.DriverState[0] = '['
	must.Eq(t, "1", h.Config.Env["A"])
	must.Eq(t, 100, h.Config.Resources.CPU)
	must.Eq(t, `{}`, string(h.DriverState))
	must.Nil(t, (*TaskHandle)(nil).Copy())
}

func TestExitResult_Successful(t *testing.T) {
	must.True(t, (&ExitResult{}).Successful())
	must.False(t, (&ExitResult{ExitCode: 1}).Successful())
	must.False(t, (&ExitResult{Signal: 9}).Successful())
	must.False(t, (&ExitResult{Err: errors.New("lost")}).Successful())
	must.False(t, (*ExitResult)(nil).Successful())
}

func TestRecoverableError(t *testing.T) {
	base := errors.New("image pull failed")
	err := fmt.Errorf("start: %w", NewRecoverableError(base, true))
	must.True(t, IsRecoverable(err))
	must.ErrorIs(t, err, base)
	must.False(t, IsRecoverable(NewRecoverableError(base, false)))
	must.False(t, IsRecoverable(base))
	must.NoError(t, NewRecoverableError(nil, true))
}
