package command

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/shoenig/test/must"
)

func TestEscapeReader(t *testing.T) {
	for _, tc := range []struct {
		name, in, out string
		closed        bool
	}{
		{"plain input", "ls\rexit\r", "ls\rexit\r", false},
		{"close at the start", "~.", "", true},
		{"close after a line", "echo hi\r~.rest", "echo hi\r", true},
		{"not at a line's start", "a~.b", "a~.b", false},
		{"doubled sends it once", "~~.\r", "~.\r", false},
		{"followed by another", "~x\r", "~x\r", false},
		{"after a newline", "a\n~.", "a\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// One byte at a time too: an escape split across reads.
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				got, err := io.ReadAll(newEscapeReader(r, '~'))
				must.Eq(t, tc.out, string(got))
				must.Eq(t, tc.closed, errors.Is(err, errEscapeClose), must.Sprint(err))
			}
		})
	}
}
