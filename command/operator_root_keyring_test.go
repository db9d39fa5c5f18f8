package command

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/cli"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/waitfor"
)

// runKeyring runs an "operator root keyring" subcommand and returns its
// exit code and output.
func runKeyring(t *testing.T, cmd cli.Command, ui *cli.MockUi, args ...string) (int, string, string) {
	t.Helper()
	code := cmd.Run(args)
	out, errOut := uiOutput(ui), ui.ErrorWriter.String()
	ui.OutputWriter.Reset()
	ui.ErrorWriter.Reset()
	return code, out, errOut
}

func TestOperatorRootKeyring_listRotateRemove(t *testing.T) {
	_, addr := testAgent(t)
	ui := newTestUi()
	meta := Meta{Ui: ui}
	list := &OperatorRootKeyringListCommand{Meta: meta}
	rotate := &OperatorRootKeyringRotateCommand{Meta: meta}
	remove := &OperatorRootKeyringRemoveCommand{Meta: meta}

	var keys []*api.RootKeyMeta
	waitfor.True(t, "the first root key", func() bool {
		code, out, _ := runKeyring(t, list, ui, "-address", addr, "-json")
		keys = nil
		return code == 0 && json.Unmarshal([]byte(out), &keys) == nil && len(keys) == 1
	})
	old := keys[0].KeyID

	code, out, errOut := runKeyring(t, list, ui, "-address", addr)
	must.Eq(t, 0, code, must.Sprint(errOut))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	must.Len(t, 2, lines)
	must.Eq(t, []string{"Key", "State", "Create", "Time"}, strings.Fields(lines[0]))
	must.Eq(t, old[:8], strings.Fields(lines[1])[0])
	must.Eq(t, "active", strings.Fields(lines[1])[1])

	code, out, errOut = runKeyring(t, rotate, ui, "-address", addr, "-verbose", "-full")
	must.Eq(t, 0, code, must.Sprint(errOut))
	lines = strings.Split(strings.TrimSpace(out), "\n")
	must.Len(t, 2, lines)
	added := strings.Fields(lines[1])[0]
	must.Len(t, 36, []byte(added))
	must.Eq(t, "active", strings.Fields(lines[1])[1])

	code, out, errOut = runKeyring(t, list, ui, "-address", addr, "-verbose")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, old)
	must.StrContains(t, out, added)
	must.StrContains(t, out, "inactive")

	code, _, errOut = runKeyring(t, remove, ui, "-address", addr, added)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "active root key cannot be removed")

	code, out, errOut = runKeyring(t, remove, ui, "-address", addr, old)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.Eq(t, "Removed root key "+old, strings.TrimSpace(out))

	code, out, _ = runKeyring(t, list, ui, "-address", addr, "-verbose")
	must.Eq(t, 0, code)
	must.StrNotContains(t, out, old)
}

func TestOperatorRootKeyring_usage(t *testing.T) {
	ui := newTestUi()
	meta := Meta{Ui: ui}
	code, _, errOut := runKeyring(t, &OperatorRootKeyringRemoveCommand{Meta: meta}, ui)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "This command takes one argument: <key ID>")
	code, _, errOut = runKeyring(t, &OperatorRootKeyringListCommand{Meta: meta}, ui, "extra")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "This command takes no arguments")
	code, _, errOut = runKeyring(t, &OperatorRootKeyringRotateCommand{Meta: meta}, ui, "extra")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "This command takes no arguments")
}
