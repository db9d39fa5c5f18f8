package command

import (
	"strings"
	"testing"

	"github.com/hashicorp/cli"
	"github.com/shoenig/test/must"
)

// Every command answers -h with its usage, and its help starts with the words
// that invoke it, so the help never drifts from the command table.
func TestEveryCommandHasUsage(t *testing.T) {
	for name, factory := range Commands(Meta{Ui: cli.NewMockUi()}) {
		t.Run(name, func(t *testing.T) {
			cmd, err := factory()
			must.NoError(t, err)
			must.NotEq(t, "", cmd.Synopsis())
			must.StrHasPrefix(t, "Usage: drover "+name, cmd.Help())

			code, out, errOut := runCLI(t, "", append(strings.Fields(name), "-h")...)
			must.Eq(t, 0, code, must.Sprintf("stderr: %s", errOut))
			must.StrContains(t, out+errOut, "Usage: drover "+name)
		})
	}
}
