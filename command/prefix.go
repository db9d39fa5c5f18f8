package command

import (
	"fmt"

	"github.com/hashicorp/cli"
)

// prefixMatch picks the one item an ID or ID prefix names among the items a
// prefix search found. An exact ID wins even when it is also the prefix of
// other IDs ("web" among "web" and "web-2"). ok is false when nothing
// matched (ambiguous is empty) or when several items matched and none
// exactly (ambiguous lists them, for the caller to show).
func prefixMatch[T any](id string, found []T, idOf func(T) string) (match T, ambiguous []T, ok bool) {
	for _, item := range found {
		if idOf(item) == id {
			return item, nil, true
		}
	}
	if len(found) == 1 {
		return found[0], nil, true
	}
	return match, found, false
}

// resolvePrefix is prefixMatch for commands: when id names no item, or
// several and none exactly, it tells the user, listing the candidates with
// table, and returns false. noun names one item in messages ("node",
// "periodic job").
func resolvePrefix[T any](ui cli.Ui, id, noun string, found []T, idOf func(T) string, table func([]T) string) (T, bool) {
	match, ambiguous, ok := prefixMatch(id, found, idOf)
	switch {
	case ok:
		return match, true
	case len(ambiguous) == 0:
		ui.Error(fmt.Sprintf("No %s(s) with prefix or id %q found", noun, id))
	default:
		ui.Error(fmt.Sprintf("Prefix matched multiple %ss\n\n%s", noun, table(ambiguous)))
	}
	return match, false
}
