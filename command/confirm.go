package command

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// confirmation is the yes/no question a command asks before it acts, and
// what it says when it does not go on.
type confirmation struct {
	question  string // ends with "[y/N]"
	notDone   string // "the job was not stopped"
	skipHint  string // how not to be asked: "use -yes to stop it without asking"
	cancelled string // said when the answer is no
}

// confirm asks q. It returns whether to go on and, if not, the exit code:
// no is a success, no answer at all or an answer that is neither yes nor
// no an error.
func (m *Meta) confirm(q confirmation) (int, bool) {
	answer, err := m.Ui.Ask(q.question)
	if errors.Is(err, io.EOF) {
		// No one to answer, as when stdin is not a terminal.
		m.Ui.Output("")
		m.Ui.Error(fmt.Sprintf("No answer, so %s; %s", q.notDone, q.skipHint))
		return exitError, false
	}
	if err != nil {
		m.Ui.Error(fmt.Sprintf("Failed to read confirmation: %v", err))
		return exitError, false
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return exitOK, true
	case "", "n", "no":
		m.Ui.Output(q.cancelled)
		return exitOK, false
	default:
		m.Ui.Error(fmt.Sprintf("Answer %q is neither y nor n; %s", answer, q.notDone))
		return exitError, false
	}
}
