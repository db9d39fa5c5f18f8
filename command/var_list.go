package command

import (
	"fmt"
	"strings"
	"text/template"

	"github.com/drover-io/drover/api"
)

// VarListCommand lists variables.
type VarListCommand struct{ Meta }

func (c *VarListCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover var list [options] [<prefix>]

  Lists the variables whose path starts with prefix, those the token may
  list: their metadata, never their items. With -namespace "*" it lists
  every namespace's.
` + clientOptionsHelp + `
List Options:

  -json
    Print the variables as JSON.

  -q
    Print only the paths, one a line.

  -t <template>
    Print with this Go template, run on the list.

  -per-page <n>
    At most this many variables; the next page's token is printed after
    them.

  -page-token <token>
    Start at this token, from the previous page.
`)
}

func (c *VarListCommand) Synopsis() string { return "List variables" }

func (c *VarListCommand) Run(args []string) int {
	var asJSON, quiet bool
	var tmpl, pageToken string
	var perPage int
	fs := c.ClientFlagSet("var list")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.BoolVar(&quiet, "q", false, "")
	fs.StringVar(&tmpl, "t", "", "")
	fs.IntVar(&perPage, "per-page", 0, "")
	fs.StringVar(&pageToken, "page-token", "", "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() > 1 {
		return usageError(c.Ui, "var list", "This command takes at most one argument: <prefix>")
	}
	if perPage < 0 {
		return usageError(c.Ui, "var list", "-per-page must not be negative")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	q := &api.QueryOptions{Prefix: fs.Arg(0), Params: map[string]string{}}
	if perPage > 0 {
		q.Params["per_page"] = fmt.Sprint(perPage)
	}
	if pageToken != "" {
		q.Params["next_token"] = pageToken
	}
	vars, qm, err := client.Variables().List(q)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "retrieving variables", err))
		return exitError
	}
	switch {
	case asJSON:
		return printJSON(c.Ui, "variables", vars)
	case tmpl != "":
		return c.printTemplate(tmpl, vars)
	case quiet:
		for _, v := range vars {
			c.Ui.Output(v.Path)
		}
		return exitOK
	case len(vars) == 0:
		c.Ui.Output("No matching variables found")
		return exitOK
	}
	rows := []string{"Namespace|Path|Last Updated"}
	for _, v := range vars {
		rows = append(rows, v.Namespace+"|"+v.Path+"|"+formatVarTime(v.ModifyTime))
	}
	c.Ui.Output(formatList(rows))
	if qm.NextToken != "" {
		c.Ui.Output(fmt.Sprintf("\nNext page token: %s", qm.NextToken))
	}
	return exitOK
}

func (c *VarListCommand) printTemplate(text string, vars []*api.VariableMetadata) int {
	t, err := template.New("list").Parse(text)
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error parsing -t: %v", err))
		return exitError
	}
	var b strings.Builder
	if err := t.Execute(&b, vars); err != nil {
		c.Ui.Error(fmt.Sprintf("Error running -t: %v", err))
		return exitError
	}
	c.Ui.Output(b.String())
	return exitOK
}
