package netns

import (
	"os"
	"os/exec"
	"testing"
)

// Require skips t unless it can make network namespaces: it runs as root,
// with ip and nsenter on the PATH. In CI (CI set) it fails t instead: CI
// runs as root, and a suite skipped there would prove nothing.
func Require(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		unavailable(t, "the test does not run as root")
	}
	for _, tool := range []string{"ip", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			unavailable(t, tool+" is not installed: "+err.Error())
		}
	}
}

// unavailable fails t in CI and skips it elsewhere, saying why.
func unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("network namespaces are unavailable (%s), and CI runs every partition test as root", why)
	}
	t.Skipf("network namespaces are unavailable (%s): run as root to test partitions (in CI this fails)", why)
}
