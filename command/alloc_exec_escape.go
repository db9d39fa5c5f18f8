package command

import (
	"errors"
	"io"
)

// errEscapeClose is the input's end a user asked for with the escape
// character and a dot.
var errEscapeClose = errors.New("connection closed by the escape sequence")

// escapeReader passes a terminal's input through, watching for the
// escape character at the start of a line: followed by '.', it ends the
// session (Read returns errEscapeClose); doubled, it sends the character
// once; followed by anything else, both go through.
type escapeReader struct {
	r      io.Reader
	escape byte
	// lineStart: the next byte begins a line; pending: the escape
	// character was read there and its meaning waits for the next byte.
	lineStart bool
	pending   bool
	buf       []byte
	// out is what was read and not yet returned; err ends the input
	// once out is.
	out []byte
	err error
}

func newEscapeReader(r io.Reader, escape byte) *escapeReader {
	return &escapeReader{r: r, escape: escape, lineStart: true, buf: make([]byte, 1024)}
}

func (e *escapeReader) Read(p []byte) (int, error) {
	for len(e.out) == 0 && e.err == nil {
		n, err := e.r.Read(e.buf)
		e.filter(e.buf[:n])
		if e.err == nil {
			e.err = err
		}
	}
	n := copy(p, e.out)
	e.out = e.out[n:]
	if len(e.out) == 0 && e.err != nil {
		return n, e.err
	}
	return n, nil
}

// filter moves what was read to out, acting on escapes.
func (e *escapeReader) filter(in []byte) {
	for _, b := range in {
		switch {
		case e.pending:
			e.pending = false
			switch b {
			case '.':
				e.err = errEscapeClose
				return
			case e.escape:
				e.out = append(e.out, b)
				e.lineStart = false
				continue
			default:
				e.out = append(e.out, e.escape)
			}
		case e.lineStart && b == e.escape:
			e.pending = true
			continue
		}
		e.out = append(e.out, b)
		e.lineStart = b == '\r' || b == '\n'
	}
}
