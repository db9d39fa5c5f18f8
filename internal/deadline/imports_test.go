package deadline

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// The package imports the standard library only (doc.go), so that the
// servers and the clients alike can use it.
func TestImportsStandardLibraryOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	must.NoError(t, err, must.Sprintf("go list -deps: %s", out))
	must.Eq(t, []string{"github.com/drover-io/drover/internal/deadline"}, strings.Fields(string(out)))
}
