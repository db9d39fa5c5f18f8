package agent

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/shoenig/test/must"
)

func TestGatedWriter(t *testing.T) {
	var out bytes.Buffer
	g := newGatedWriter(&out)
	fmt.Fprintln(g, "held")
	must.Eq(t, "", out.String())
	must.NoError(t, g.Flush())
	must.Eq(t, "held\n", out.String())
	fmt.Fprintln(g, "passed")
	must.Eq(t, "held\npassed\n", out.String())
}

func TestUiWriter(t *testing.T) {
	ui := &lockedUi{}
	w := &uiWriter{ui: ui}
	n, err := w.Write([]byte("one\ntwo\n"))
	must.NoError(t, err)
	must.Eq(t, 8, n)
	must.Eq(t, "one\ntwo\n", ui.Out())
}
