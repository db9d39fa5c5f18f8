package periodic

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// A periodic parameterized job launches nothing until dispatched; its
// dispatched child launches on the schedule, as in Nomad.
func TestPeriodicDispatcher_ParameterizedWaitsForDispatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var l fakeLauncher
		d := startDispatcher(t, &l)
		parent := periodicJob("p", "* * * * *")
		parent.ParameterizedJob = &structs.ParameterizedJobConfig{Payload: structs.DispatchPayloadOptional}
		d.Add(parent)
		time.Sleep(90 * time.Second)
		synctest.Wait()
		must.Len(t, 0, l.list())

		child := parent.Copy()
		child.ID, child.ParentID, child.Dispatched = "p/dispatch-946684800-0123abcd", "p", true
		d.Add(child)
		time.Sleep(time.Minute)
		synctest.Wait()
		must.Len(t, 1, l.list())
	})
}
