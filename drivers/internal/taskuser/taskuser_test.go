package taskuser

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestLookup(t *testing.T) {
	ids, err := Lookup("root")
	must.NoError(t, err)
	must.Eq(t, 0, ids.UID)
	must.Eq(t, 0, ids.GID)
	must.SliceContains(t, ids.Groups, 0)

	_, err = Lookup("no-such-user-here")
	must.ErrorContains(t, err, `task user "no-such-user-here"`)
}
