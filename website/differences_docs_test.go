package website

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/cli"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/api/unsupported"
	"github.com/drover-io/drover/command"
	"github.com/drover-io/drover/command/agent"
	"github.com/drover-io/drover/jobcheck"
	"github.com/drover-io/drover/structs"
)

var update = flag.Bool("update", false, "rewrite the generated part of differences.md from api/unsupported's table")

// differencesPage is the "Differences from Nomad" page, relative to the
// docs directory; unsupported.DocsPage names it from the repository's top.
const differencesPage = "differences.md"

// The generated part of the page lies between these lines.
const (
	generatedBegin = "<!-- BEGIN GENERATED from api/unsupported: go test ./website -run TestDifferencesPage -update -->"
	generatedEnd   = "<!-- END GENERATED -->"
)

// regenerate is what a failure of the page's tests tells to do.
const regenerate = "go test ./website -run TestDifferencesPage -update"

func TestDifferencesPage_IsTheTables(t *testing.T) {
	must.Eq(t, filepath.ToSlash(filepath.Join("website", docsDir, differencesPage)), unsupported.DocsPage,
		must.Sprint("the page the parser's and the agent's messages point at"))
}

// TestDifferencesPage holds the page's generated part to api/unsupported's
// table; with -update it rewrites it.
func TestDifferencesPage(t *testing.T) {
	path := filepath.Join(docsDir, differencesPage)
	data, err := os.ReadFile(path)
	must.NoError(t, err)
	page := string(data)
	start := strings.Index(page, generatedBegin)
	end := strings.Index(page, generatedEnd)
	must.True(t, start >= 0 && end > start, must.Sprintf("%s lacks the lines %q and %q around its generated part", path, generatedBegin, generatedEnd))
	head, tail := page[:start+len(generatedBegin)], page[end:]
	want := head + "\n\n" + renderDifferences() + "\n" + tail
	if *update {
		must.NoError(t, os.WriteFile(path, []byte(want), 0o644))
		return
	}
	must.Eq(t, want, page, must.Sprintf("%s is not what api/unsupported's table renders: run %s", path, regenerate))
}

// renderDifferences renders the table as the page's generated part.
func renderDifferences() string {
	var b strings.Builder
	b.WriteString("## Job fields, blocks and arguments\n\n")
	b.WriteString("| Job JSON field | Jobspec | Drover | Why |\n|---|---|---|---|\n")
	for _, f := range unsupported.Fields() {
		json := "-"
		if f.JSON != "" {
			json = "`" + f.JSON + "`"
		}
		decision := f.Decision.String()
		if f.Default != "" {
			decision += "; warned when it holds only Nomad's default"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", json, hclForms(f), decision, escapeCell(f.Reason))
	}

	b.WriteString("\n## HTTP API routes\n\nNomad's routes that the agent does not serve (it answers 404, naming the route as Nomad's and pointing here):\n\n")
	b.WriteString("| Area | Method | Path |\n|---|---|---|\n")
	for _, r := range unsupported.Routes() {
		fmt.Fprintf(&b, "| %s | `%s` | `%s` |\n", r.Area, r.Method, r.Path)
	}

	b.WriteString("\n## CLI commands\n\nNomad's commands that `drover` does not have:\n\n")
	b.WriteString("| Command | What it does in Nomad |\n|---|---|\n")
	for _, c := range unsupported.Commands() {
		name := "`" + c.Name + "`"
		if c.Group {
			name = "`" + c.Name + " ...`"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", name, escapeCell(c.What))
	}

	b.WriteString("\n## Agent settings\n\nNomad's agent settings that Drover has no use for: a file that sets them\nis accepted, and the agent logs a warning that names them.\n\n")
	b.WriteString("| Setting | Why Drover does without it |\n|---|---|\n")
	for _, s := range unsupported.AgentSettings() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", s.Path, escapeCell(s.Why))
	}

	b.WriteString("\n## Drivers\n\nNomad's task drivers that Drover does not have:\n\n")
	b.WriteString("| Driver | What it runs |\n|---|---|\n")
	for _, d := range unsupported.Drivers() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", d.Name, escapeCell(d.What))
	}
	return b.String()
}

// hclForms renders a field's jobspec forms: "`update` block in `job`".
func hclForms(f unsupported.Field) string {
	if len(f.HCL) == 0 {
		return "- (API only)"
	}
	kind := "argument"
	if f.Block {
		kind = "block"
	}
	var name string
	var parents []string
	for _, form := range f.HCL {
		parent, n, _ := strings.Cut(form, ".")
		name = n
		parents = append(parents, "`"+parent+"`")
	}
	return fmt.Sprintf("`%s` %s in %s", name, kind, strings.Join(parents, ", "))
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// paramPattern matches a path parameter, ":id", however it is named.
var paramPattern = regexp.MustCompile(`:[A-Za-z_]+`)

// TestDifferences_RoutesAreNotServed holds the table's routes to the
// routes the agent registers: one the agent serves cannot be listed as
// missing.
func TestDifferences_RoutesAreNotServed(t *testing.T) {
	served := map[string]bool{}
	for _, r := range registeredRoutes(t, agentDir) {
		served[r.method+" "+paramPattern.ReplaceAllString(r.path, ":")] = true
	}
	for _, r := range unsupported.Routes() {
		if served[r.Method+" "+paramPattern.ReplaceAllString(r.Path, ":")] {
			t.Errorf("the agent serves %s %s now: remove its row from api/unsupported (surface.go, routes) and run %s", r.Method, r.Path, regenerate)
		}
	}
}

// TestDifferences_CommandsAreNotInTheCLI holds the table's commands to the
// CLI's command table.
func TestDifferences_CommandsAreNotInTheCLI(t *testing.T) {
	commands := command.Commands(command.Meta{Ui: cli.NewMockUi()})
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, c := range unsupported.Commands() {
		for _, name := range names {
			switch {
			case name == c.Name && c.Group:
				t.Errorf("drover has %q now: in api/unsupported (surface.go, commands), list the %s commands it still lacks instead of the whole group, and run %s", name, c.Name, regenerate)
			case name == c.Name:
				t.Errorf("drover has the command %q now: remove its row from api/unsupported (surface.go, commands) and run %s", name, regenerate)
			case c.Group && strings.HasPrefix(name, c.Name+" "):
				t.Errorf("drover has the command %q now: in api/unsupported (surface.go, commands), list the %s commands it still lacks instead of the whole group, and run %s", name, c.Name, regenerate)
			}
		}
	}
}

// TestDifferences_DriversAreNotBuiltIn holds the table's drivers to the
// drivers in the tree: a driver package (drivers/<name>) or a driver page
// of the documentation means Drover has it.
func TestDifferences_DriversAreNotBuiltIn(t *testing.T) {
	for _, d := range unsupported.Drivers() {
		pkg := filepath.Join(repoRoot, "drivers", strings.ReplaceAll(d.Name, "_", ""))
		if fi, err := os.Stat(pkg); err == nil && fi.IsDir() {
			t.Errorf("drivers/%s exists: Drover has the %s driver now; remove its row from api/unsupported (surface.go, drivers) and run %s", filepath.Base(pkg), d.Name, regenerate)
		}
		if _, err := os.Stat(filepath.Join(docsDir, "drivers", d.Name+".md")); err == nil {
			t.Errorf("drivers/%s.md documents the %s driver: remove its row from api/unsupported (surface.go, drivers) and run %s", d.Name, d.Name, regenerate)
		}
	}
}

// TestDifferences_JSONJobWithANomadDriver: a job submitted as JSON with
// one of the table's drivers is refused pointing at this page.
func TestDifferences_JSONJobWithANomadDriver(t *testing.T) {
	for _, d := range unsupported.Drivers() {
		err := jobcheck.Submitted(agent.CanonicalJob(&api.Job{
			ID: new("j"), Type: new("batch"),
			TaskGroups: []*api.TaskGroup{{Name: new("g"), Tasks: []*api.Task{{Name: "t", Driver: d.Name}}}},
		}), structs.JobLimits{})
		must.ErrorContains(t, err, fmt.Sprintf(`Task group "g" task "t": Unknown driver %q (Drover's drivers: docker, exec, exec2, java, raw_exec; Nomad's others: see %s)`, d.Name, unsupported.DocsPage))
	}
}
