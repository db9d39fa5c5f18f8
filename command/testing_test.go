package command

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// runCLI runs the CLI in-process and returns its exit code and output.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	var in io.Reader = strings.NewReader(stdin)
	code = run(args, in, &out, &errOut)
	return code, out.String(), errOut.String()
}
