package taskrunner

import (
	"os"
	"os/user"
	"strconv"
	"testing"

	"github.com/shoenig/test/must"
)

func TestTaskOwner(t *testing.T) {
	for _, name := range []string{"", "no-such-user-on-this-machine", "root"} {
		_, ok, err := taskOwner(name)
		must.NoError(t, err, must.Sprint(name))
		must.False(t, ok, must.Sprintf("%q keeps the agent's directories", name))
	}
	owner, ok, err := taskOwner("nobody")
	must.NoError(t, err)
	must.Eq(t, os.Geteuid() == 0, ok, must.Sprint("only a root agent gives directories away"))
	if ok {
		u, err := user.Lookup("nobody")
		must.NoError(t, err)
		must.Eq(t, u.Uid, strconv.Itoa(owner.UID))
	}
}
