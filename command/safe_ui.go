package command

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hashicorp/cli"
)

// safeUi shows what a server sends as text, never as terminal commands:
// every character that is not printable, other than line breaks and tabs,
// is written as an escape (\u001b for ESC). A job ID, a task event or an
// error message holding escape sequences could otherwise clear the
// screen, retitle the window, or hide what follows; a server refuses such
// names (structs.NonPrintable), but the CLI does not count on it. Task
// logs are the exception: alloc logs writes them byte for byte to the
// UI's writer (uiOutWriter), as the task wrote them.
type safeUi struct{ cli.Ui }

func (u *safeUi) Output(s string) { u.Ui.Output(escapeUnprintable(s)) }
func (u *safeUi) Info(s string)   { u.Ui.Info(escapeUnprintable(s)) }
func (u *safeUi) Error(s string)  { u.Ui.Error(escapeUnprintable(s)) }
func (u *safeUi) Warn(s string)   { u.Ui.Warn(escapeUnprintable(s)) }

// escapeUnprintable writes each rune unicode.IsPrint refuses, and each
// byte that is not UTF-8, as a \uXXXX escape, the form JSON uses too, so
// that printed JSON stays JSON. Line breaks and tabs stay.
func escapeUnprintable(s string) string {
	i := strings.IndexFunc(s, unprintable)
	if i < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\ufffd`)
		case unprintable(r):
			if r1, r2 := utf16.EncodeRune(r); r1 != unicode.ReplacementChar {
				fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}

func unprintable(r rune) bool {
	return r != '\n' && r != '\t' && !unicode.IsPrint(r)
}
