package structs

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// NonPrintable describes the first character of s that is not printable,
// or returns "" when every character is. Printable means valid UTF-8 whose
// every rune unicode.IsPrint accepts: letters, marks, numbers, punctuation,
// symbols and the ASCII space. Control characters (NUL, ESC, BEL, DEL, the
// C1 range), other spaces and invisible format characters such as the
// bidirectional overrides are not.
//
// It is the one rule for names that are addressed in URLs and shown on
// terminals: IDs, names and namespaces are refused at register when they
// break it, and at every read path by the HTTP layer, so that nothing can
// be created that cannot be read, stopped or purged again.
func NonPrintable(s string) string {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return fmt.Sprintf("invalid UTF-8 at byte %d", i+1)
			}
		}
		if !unicode.IsPrint(r) {
			return fmt.Sprintf("%U at byte %d", r, i+1)
		}
	}
	return ""
}

// printableProblem is the problem NonPrintable finds, phrased to follow
// the name's kind ("Job ID ..."), or "".
func printableProblem(s string) string {
	if bad := NonPrintable(s); bad != "" {
		return "must contain only printable characters, not " + bad
	}
	return ""
}
