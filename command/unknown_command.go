package command

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/cli"

	"github.com/drover-io/drover/api/unsupported"
	"github.com/drover-io/drover/internal/editdist"
)

// commandWords returns the leading words of args that can name a command:
// those before the first flag, or the first argument with a space or
// nothing in it, as the cli package reads them.
func commandWords(args []string) []string {
	for i, arg := range args {
		if arg == "" || arg[0] == '-' || strings.ContainsRune(arg, ' ') {
			return args[:i]
		}
	}
	return args
}

// resolveCommand finds the longest run of leading words that names a
// command. It returns that command's name ("" when the first word names
// none) and, when the next word would have to name one of its
// subcommands but names none, that word.
func resolveCommand(commands map[string]cli.CommandFactory, words []string) (name, unknown string) {
	for n := len(words); n > 0; n-- {
		candidate := strings.Join(words[:n], " ")
		if _, ok := commands[candidate]; !ok {
			continue
		}
		if n < len(words) && len(subcommandWords(commands, candidate)) > 0 {
			return candidate, words[n]
		}
		return candidate, ""
	}
	if len(words) == 0 {
		return "", ""
	}
	return "", words[0]
}

// subcommandWords lists the words that follow parent in the names of its
// direct subcommands ("" parent: the top-level commands), hidden ones
// left out.
func subcommandWords(commands map[string]cli.CommandFactory, parent string) []string {
	var words []string
	for name := range commands {
		if slices.Contains(hiddenCommands, name) {
			continue
		}
		rest := name
		if parent != "" {
			var ok bool
			if rest, ok = strings.CutPrefix(name, parent+" "); !ok {
				continue
			}
		}
		if !strings.Contains(rest, " ") {
			words = append(words, rest)
		}
	}
	slices.Sort(words)
	return words
}

// unknownCommandError explains why words name no command: a Nomad
// command that Drover lacks says so and where to read what Drover has;
// anything else gets the closest names, or the names there are.
func unknownCommandError(commands map[string]cli.CommandFactory, words []string, parent, unknown string) string {
	if c, ok := nomadOnlyCommand(words); ok {
		return fmt.Sprintf("%q is a Nomad command that Drover does not support (%s); see %s",
			c.Name, c.What, unsupported.DocsPage)
	}
	full := strings.TrimSpace(parent + " " + unknown)
	siblings := subcommandWords(commands, parent)
	var b strings.Builder
	fmt.Fprintf(&b, "unknown command %q", full)
	if close := closestWords(unknown, siblings); len(close) > 0 {
		quoted := make([]string, len(close))
		for i, w := range close {
			quoted[i] = fmt.Sprintf("%q", strings.TrimSpace(parent+" "+w))
		}
		fmt.Fprintf(&b, ", did you mean %s?", strings.Join(quoted, " or "))
	}
	if parent == "" {
		b.WriteString("\nRun 'drover -h' for the list of commands.")
	} else {
		fmt.Fprintf(&b, "\nThe subcommands of %q are: %s.\nRun 'drover %s -h' for what they do.",
			"drover "+parent, strings.Join(siblings, ", "), parent)
	}
	return b.String()
}

// nomadOnlyCommand finds the Nomad command that words start with among
// those Drover does not have: a group matches any of its subcommands.
func nomadOnlyCommand(words []string) (unsupported.Command, bool) {
	line := strings.Join(words, " ")
	for _, c := range unsupported.Commands() {
		if line == c.Name || strings.HasPrefix(line, c.Name+" ") {
			return c, true
		}
	}
	return unsupported.Command{}, false
}

// closestWords returns, of the candidates, those nearest to word by edit
// distance, when near enough to be a typo (at most a third of the
// word's length, and at least 1), and those word begins.
func closestWords(word string, candidates []string) []string {
	limit := max(len(word)/3, 1)
	best, out := limit+1, []string(nil)
	for _, c := range candidates {
		d := editdist.Distance(word, c)
		if strings.HasPrefix(c, word) && d > limit {
			d = limit
		}
		switch {
		case d < best:
			best, out = d, []string{c}
		case d == best:
			out = append(out, c)
		}
	}
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}
