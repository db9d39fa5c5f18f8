package client

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// The client tree's packages import what their doc.go says they may:
// no server, API, agent or driver implementation, whatever the import
// cycles would allow.
func TestClientImports(t *testing.T) {
	const module = "github.com/drover-io/drover/"
	cases := []struct {
		pkgs      string
		forbidden []string
	}{
		{"./...", []string{"nomad", "scheduler", "api", "command", "jobspec2", "ui", "e2e", "bench",
			"drivers/docker", "drivers/rawexec", "drivers/mock"}},
		{"./fingerprint", []string{"drivers"}},
	}
	for _, tc := range cases {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", tc.pkgs).CombinedOutput()
		must.NoError(t, err, must.Sprintf("go list -deps %s: %s", tc.pkgs, out))
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range tc.forbidden {
				if dep == module+f || strings.HasPrefix(dep, module+f+"/") {
					t.Errorf("%s depends on %s", tc.pkgs, dep)
				}
			}
		}
	}
}
