package taskrunner

import (
	"reflect"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/state"
)

// sameMap reports whether a and b are one map.
func sameMap(a, b map[string]*state.HookState) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func TestWithPrestartDone_SharesEqualSetsAndLeavesItsInputAlone(t *testing.T) {
	first := withPrestartDone(nil, "task_dir")
	one := withPrestartDone(first, "artifacts")
	must.MapLen(t, 1, first, must.Sprint("the input is not written"))
	must.MapEq(t, map[string]*state.HookState{"task_dir": prestartDone, "artifacts": prestartDone}, one)
	other := withPrestartDone(withPrestartDone(nil, "artifacts"), "task_dir")
	must.True(t, sameMap(one, other), must.Sprint("equal sets share one map"))
	must.False(t, sameMap(first, one))

	withData := map[string]*state.HookState{"task_dir": {PrestartDone: true, Data: map[string]string{"k": "v"}}}
	got := withPrestartDone(withData, "artifacts")
	must.Eq(t, "v", got["task_dir"].Data["k"])
	must.False(t, sameMap(got, one), must.Sprint("a set with data is not shared"))
	must.MapLen(t, 1, withData)
}
