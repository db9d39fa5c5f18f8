package command

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/cli"

	"github.com/drover-io/drover/api"
)

// printJSON prints v as indented JSON; what names it in an error.
func printJSON(ui cli.Ui, what string, v any) int {
	out, err := json.MarshalIndent(v, "", "    ")
	if err != nil {
		ui.Error(fmt.Sprintf("Error encoding %s: %v", what, err))
		return exitError
	}
	ui.Output(string(out))
	return exitOK
}

// usageError prints a usage problem and where to find help.
func usageError(ui cli.Ui, command, problem string) int {
	ui.Error(problem)
	ui.Error(fmt.Sprintf("For additional help try 'drover %s -h'", command))
	return exitError
}

// readInput reads a file, or stdin for "-".
func readInput(path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(path)
}

// printToken prints a token the commands that return one print: as JSON,
// or as formatToken shows it.
func printToken(ui cli.Ui, t *api.ACLToken, asJSON bool) int {
	if asJSON {
		return printJSON(ui, "token", t)
	}
	ui.Output(formatToken(t))
	return exitOK
}

// formatToken shows a token as Nomad's CLI does, secret included: the
// commands that show one (bootstrap, create, info, self) are how its
// holder learns it.
func formatToken(t *api.ACLToken) string {
	policies := "n/a"
	if t.Type != api.ACLManagementToken {
		policies = fmt.Sprint(t.Policies)
	}
	return formatKV([]string{
		"Accessor ID|" + t.AccessorID,
		"Secret ID|" + t.SecretID,
		"Name|" + t.Name,
		"Type|" + t.Type,
		fmt.Sprintf("Global|%t", t.Global),
		"Create Time|" + t.CreateTime.Format(time.RFC3339Nano),
		"Expiry Time|" + expiryTime(t.ExpirationTime),
		fmt.Sprintf("Create Index|%d", t.CreateIndex),
		fmt.Sprintf("Modify Index|%d", t.ModifyIndex),
		"Policies|" + policies,
	})
}

func expiryTime(t *time.Time) string {
	if t == nil {
		return "<none>"
	}
	return t.Format(time.RFC3339Nano)
}

// tokenExpired reports whether a listed token is past its expiry.
func tokenExpired(t *time.Time, now time.Time) bool {
	return t != nil && !now.Before(*t)
}

// policyFlag collects repeated -policy flags.
type policyFlag []string

func (p *policyFlag) String() string { return strings.Join(*p, ",") }

func (p *policyFlag) Set(v string) error {
	*p = append(*p, v)
	return nil
}
