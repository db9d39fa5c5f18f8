package command

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
