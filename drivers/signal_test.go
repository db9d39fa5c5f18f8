package drivers

import (
	"syscall"
	"testing"

	"github.com/shoenig/test/must"
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
