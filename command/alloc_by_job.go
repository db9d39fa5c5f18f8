package command

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/drover-io/drover/api"
)

// resolveJobAlloc finds the allocation a -job flag stands for: the job
// named by its ID or a unique prefix of one, then one of its allocations
// (not those of a purged job of the same ID), picked as Nomad's CLI picks
// it: a running one at
// random, else the newest of the others, so that the logs of a finished
// batch job are still at hand. A job without allocations, or none that
// can be told, is reported and false returned.
func (m *Meta) resolveJobAlloc(client *api.Client, jobID string) (*api.Allocation, bool) {
	job, ok := m.resolveJob(client, jobID)
	if !ok {
		return nil, false
	}
	stubs, _, err := client.Jobs().Allocations(job.ID, false, nil)
	if err != nil {
		m.Ui.Error(apiErrorLine(client, "querying the job's allocations", err))
		return nil, false
	}
	stub := pickJobAlloc(stubs, rand.IntN)
	if stub == nil {
		m.Ui.Error(fmt.Sprintf("Job %q has no allocations", job.ID))
		return nil, false
	}
	alloc, _, err := client.Allocations().Info(stub.ID, nil)
	if err != nil {
		m.Ui.Error(apiErrorLine(client, "querying allocation", err))
		return nil, false
	}
	return alloc, true
}

// pickJobAlloc picks one of a job's allocations: a running one, with
// intn (rand.IntN but in tests) choosing among several; without one, the
// newest (the highest CreateIndex); nil for none.
func pickJobAlloc(stubs []*api.AllocationListStub, intn func(int) int) *api.AllocationListStub {
	var running []*api.AllocationListStub
	var newest *api.AllocationListStub
	for _, s := range stubs {
		if s == nil {
			continue
		}
		if s.ClientStatus == api.AllocClientStatusRunning {
			running = append(running, s)
		}
		if newest == nil || s.CreateIndex > newest.CreateIndex {
			newest = s
		}
	}
	if len(running) > 0 {
		// In a stable order, so that intn alone decides.
		slices.SortFunc(running, func(a, b *api.AllocationListStub) int { return cmp.Compare(a.ID, b.ID) })
		return running[intn(len(running))]
	}
	return newest
}
