package command

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/hashicorp/cli"
)

// runCLI runs the CLI in-process and returns its exit code and output.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	var in io.Reader = strings.NewReader(stdin)
	code = run(args, in, &out, &errOut)
	return code, out.String(), errOut.String()
}

// newTestUi returns a UI that records what a command prints.
func newTestUi() *cli.MockUi { return cli.NewMockUi() }

// uiOutput is what a command printed to a test UI's standard output.
func uiOutput(ui cli.Ui) string { return ui.(*cli.MockUi).OutputWriter.String() }
