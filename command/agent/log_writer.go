package agent

import (
	"bytes"
	"io"
	"strings"
	"sync"

	"github.com/hashicorp/cli"
)

// gatedWriter holds what is written to it until Flush, then passes writes
// through. The agent's log lines written while it starts wait until the
// startup banner is out, so the banner is not interleaved with them.
type gatedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	buf     bytes.Buffer
	flushed bool
}

func newGatedWriter(w io.Writer) *gatedWriter { return &gatedWriter{w: w} }

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.flushed {
		return g.buf.Write(p)
	}
	return g.w.Write(p)
}

// Flush writes what was held and opens the gate.
func (g *gatedWriter) Flush() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.flushed = true
	_, err := g.w.Write(g.buf.Bytes())
	g.buf.Reset()
	return err
}

// uiWriter sends each line written to it to a cli.Ui's output, so that log
// lines go wherever the command's output goes.
type uiWriter struct {
	mu sync.Mutex
	ui cli.Ui
}

func (u *uiWriter) Write(p []byte) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if line != "" {
			u.ui.Output(line)
		}
	}
	return len(p), nil
}
