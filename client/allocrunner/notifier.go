package allocrunner

import (
	"reflect"

	"github.com/drover-io/drover/structs"
)

// runNotifier hands the allocation's client state to the state handler
// whenever it changed, until stop is closed; it then sends the final state
// and closes done.
func (ar *AllocRunner) runNotifier(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	if ar.handler == nil {
		<-stop
		return
	}
	var last *structs.Allocation
	send := func() {
		a := ar.Alloc()
		if last != nil && sameClientState(last, a) {
			return
		}
		ar.handler.AllocStateUpdated(a)
		last = a
	}
	for {
		select {
		case <-ar.notifyCh:
			send()
		case <-stop:
			send()
			return
		}
	}
}

func sameClientState(a, b *structs.Allocation) bool {
	return a.ClientStatus == b.ClientStatus &&
		a.ClientDescription == b.ClientDescription &&
		reflect.DeepEqual(a.TaskStates, b.TaskStates)
}
