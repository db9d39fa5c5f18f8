package website

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/cli"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command"
)

// commandsDir is where the CLI reference lives.
const commandsDir = "commands"

// generalOptionsHeading heads the flags every command that talks to an
// agent shares; they are documented once, in commands/index.md.
const generalOptionsHeading = "General Options:"

// TestCLIReference holds the CLI reference to the command table: every
// command (command.Commands) has a page named after its words,
// commands/job/run.md for "job run", or commands/job/index.md for a
// command with subcommands; the page names the command and documents, as a
// code span starting with the flag, every flag its help lists. The flags under "General Options:" are documented once in
// commands/index.md, which each such page links. A command group's page
// links the pages of its subcommands.
func TestCLIReference(t *testing.T) {
	commands := command.Commands(command.Meta{Ui: cli.NewMockUi()})
	general := codeSpans(readDoc(t, filepath.Join(commandsDir, "index.md")))
	for name, factory := range commands {
		t.Run(name, func(t *testing.T) {
			cmd, err := factory()
			must.NoError(t, err)
			rel, ok := commandPage(name, hasSubcommands(commands, name))
			must.True(t, ok, must.Sprintf("no page for command %q: expected %s", name, rel))
			page := readDoc(t, rel)
			must.StrContains(t, page, "drover "+name, must.Sprintf("%s does not name the command", rel))
			spans := codeSpans(page)

			sections := helpFlags(cmd.Help())
			for _, flag := range sections[generalOptionsHeading] {
				must.True(t, flagDocumented(general, flag),
					must.Sprintf("general option -%s of %q is not documented in %s/index.md", flag, name, commandsDir))
			}
			if len(sections[generalOptionsHeading]) > 0 {
				must.RegexMatch(t, generalOptionsLink, page,
					must.Sprintf("%s does not link the general options (index.md#general-options)", rel))
			}
			for heading, flags := range sections {
				if heading == generalOptionsHeading {
					continue
				}
				for _, flag := range flags {
					must.True(t, flagDocumented(spans, flag),
						must.Sprintf("%s does not document -%s (a code span starting with `-%s`)", rel, flag, flag))
				}
			}
			for sub := range commands {
				word, ok := strings.CutPrefix(sub, name+" ")
				if !ok || strings.Contains(word, " ") {
					continue
				}
				link := "(" + word + ".md)"
				if hasSubcommands(commands, sub) {
					link = "(" + word + "/index.md)"
				}
				must.StrContains(t, page, link, must.Sprintf("%s does not link its subcommand %q as %s", rel, sub, link))
			}
		})
	}
}

// TestCLIReference_NoStrayPages holds that every page of the CLI reference
// but its index is a command's.
func TestCLIReference_NoStrayPages(t *testing.T) {
	commands := command.Commands(command.Meta{Ui: cli.NewMockUi()})
	pages := readDocs(t, commandsDir)
	for rel := range pages {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(rel), commandsDir+"/"), ".md")
		name = strings.TrimSuffix(name, "/index")
		if name == "index" {
			continue
		}
		name = strings.ReplaceAll(name, "/", " ")
		_, known := commands[name]
		must.True(t, known, must.Sprintf("%s documents a command the CLI does not have", rel))
	}
}

var generalOptionsLink = regexp.MustCompile(`\]\((\.\./)*index\.md#general-options\)`)

// commandPage is the page of a command, and whether it exists.
func commandPage(name string, group bool) (string, bool) {
	words := strings.Fields(name)
	rel := filepath.Join(append([]string{commandsDir}, words...)...) + ".md"
	if group {
		rel = filepath.Join(append([]string{commandsDir}, words...)...)
		rel = filepath.Join(rel, "index.md")
	}
	_, err := os.Stat(filepath.Join(docsDir, rel))
	return rel, err == nil
}

func hasSubcommands(commands map[string]cli.CommandFactory, name string) bool {
	for other := range commands {
		if strings.HasPrefix(other, name+" ") {
			return true
		}
	}
	return false
}

var (
	helpHeading = regexp.MustCompile(`^(\S.*):\s*$`)
	helpFlag    = regexp.MustCompile(`^  -([a-zA-Z][a-zA-Z0-9_-]*)`)
)

// helpFlags reads the flags out of a command's help text: lines indented
// by two spaces that start with "-name", grouped under the last heading
// ("Options:", "General Options:", ...) above them.
func helpFlags(help string) map[string][]string {
	out := map[string][]string{}
	heading := ""
	for line := range strings.Lines(help) {
		line = strings.TrimRight(line, "\r\n")
		if m := helpHeading.FindStringSubmatch(line); m != nil {
			heading = m[1] + ":"
			continue
		}
		if m := helpFlag.FindStringSubmatch(line); m != nil {
			out[heading] = append(out[heading], m[1])
		}
	}
	return out
}

// flagDocumented reports whether a code span documents the flag: "-name"
// alone or followed by "=" or a space and its value.
func flagDocumented(spans map[string]bool, flag string) bool {
	for span := range spans {
		rest, ok := strings.CutPrefix(span, "-"+flag)
		if ok && (rest == "" || rest[0] == '=' || rest[0] == ' ') {
			return true
		}
	}
	return false
}

func TestHelpFlags(t *testing.T) {
	help := `Usage: drover x [options]

  Text that mentions -notaflag in a sentence.

General Options:

  -address=<addr>
    The address.

Run Options:

  -detach
    Return at once.

  -var 'key=value'
    A variable.
`
	must.Eq(t, map[string][]string{
		"General Options:": {"address"},
		"Run Options:":     {"detach", "var"},
	}, helpFlags(help))
	must.True(t, flagDocumented(map[string]bool{"-var 'key=value'": true}, "var"))
	must.False(t, flagDocumented(map[string]bool{"-verbose": true}, "var"))
}
