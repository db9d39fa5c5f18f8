package command

import (
	"flag"
	"io"
	"strings"

	"github.com/hashicorp/cli"
)

// Meta is what every command shares: the UI and the common flags.
type Meta struct {
	Ui cli.Ui
	// Stdin is where "-" paths read from.
	Stdin io.Reader
}

// FlagSet returns a flag set for the named command whose errors and usage go
// to the UI, so that a bad flag prints one line and the command exits 1.
func (m *Meta) FlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(&uiErrorWriter{ui: m.Ui})
	fs.Usage = func() {}
	return fs
}

// uiErrorWriter sends what the flag package prints to the UI's error stream.
type uiErrorWriter struct{ ui cli.Ui }

var _ io.Writer = (*uiErrorWriter)(nil)

func (w *uiErrorWriter) Write(p []byte) (int, error) {
	if s := strings.TrimRight(string(p), "\n"); s != "" {
		w.ui.Error(s)
	}
	return len(p), nil
}
