package structs

import (
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLinuxSignalNames holds the table of signal names to the platform's.
func TestLinuxSignalNames(t *testing.T) {
	for n := 1; n < len(linuxSignalNames); n++ {
		want := strings.TrimPrefix(unix.SignalName(syscall.Signal(n)), "SIG")
		if want == "IOT" || want == "POLL" { // aliases unix may name first
			continue
		}
		if got := signalName(n); got != want {
			t.Errorf("signal %d: %q, the platform says %q", n, got, want)
		}
	}
	if got := signalName(64); got != "64" {
		t.Errorf("an unnamed signal: %q", got)
	}
}
