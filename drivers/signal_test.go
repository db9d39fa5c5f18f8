package drivers

import (
	"syscall"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func TestSignal(t *testing.T) {
	cases := []struct {
		in   string
		want syscall.Signal
	}{
		{"SIGINT", syscall.SIGINT},
		{"INT", syscall.SIGINT},
		{"sigterm", syscall.SIGTERM},
		{"kill", syscall.SIGKILL},
		{" SIGUSR1 ", syscall.SIGUSR1},
		{"SIGHUP", syscall.SIGHUP},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Signal(tc.in)
			must.NoError(t, err)
			must.Eq(t, tc.want, got)
		})
	}
}

func TestSignal_Unknown(t *testing.T) {
	for _, in := range []string{"SIGBOGUS", "", "SIG", "9"} {
		_, err := Signal(in)
		must.ErrorContains(t, err, "unknown signal")
		must.ErrorContains(t, err, `"`+in+`"`)
	}
}

// TestSignal_KnowsStructsSignalNames holds the servers' list of signal
// names (which validates max_run_warning) and the drivers' table
// together, both ways.
func TestSignal_KnowsStructsSignalNames(t *testing.T) {
	for _, name := range structs.SignalNames {
		_, err := Signal("SIG" + name)
		must.NoError(t, err, must.Sprintf("structs.SignalNames has %s, the drivers do not", name))
	}
	for name := range signalsByName {
		must.SliceContains(t, structs.SignalNames, name, must.Sprintf("the drivers know SIG%s, structs.SignalNames does not", name))
	}
}
