package authcount

import "testing"

func TestAdd_countsOnlyInATestBuild(t *testing.T) {
	before := Total()
	Add()
	Add()
	want := uint64(0)
	if Enabled {
		want = 2
	}
	if got := Total() - before; got != want {
		t.Fatalf("two checks counted as %d, want %d (Enabled=%v)", got, want, Enabled)
	}
}
