package isolate

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestAllocGuard(t *testing.T) {
	guard := allocGuard(&Spec{AllocRoot: "/data/alloc/a1", TaskName: "web", AllocDirName: "alloc"})
	for _, ok := range []string{"/data/alloc/a1/web", "/data/alloc/a1/web/local", "/data/alloc/a1/alloc/data", "/etc/ssl", "/data/other", "/data/allocx"} {
		must.NoError(t, guard(ok), must.Sprint(ok))
	}
	for _, bad := range []string{"/", "/data", "/data/alloc", "/data/alloc/a1", "/data/alloc/a2/web", "/data/alloc/a1/db", "/data/alloc/a1/web2"} {
		must.ErrorContains(t, guard(bad), "would reach the client's allocation directories (/data/alloc)", must.Sprint(bad))
	}
}
