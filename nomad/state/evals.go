package state

import (
	"errors"
	"fmt"

	"github.com/drover-io/drover/structs"
	"github.com/hashicorp/go-memdb"
)

// UpsertEvals stores evaluations, taking ownership of them. An update
// keeps the stored CreateIndex, and the stored CreateTime when the new
// one is unset; ModifyIndex becomes index. Times are set by whoever
// builds the evaluation, never here: every server must apply a log entry
// identically.
func (s *StateStore) UpsertEvals(index uint64, evals []*structs.Evaluation) error {
	for i, eval := range evals {
		if err := checkEval(eval); err != nil {
			return fmt.Errorf("upsert evaluation %d: %w", i, err)
		}
	}
	return s.write(func(txn *memdb.Txn) error {
		for _, eval := range evals {
			if err := upsertEval(txn, index, eval); err != nil {
				return fmt.Errorf("upsert evaluation %q: %w", eval.ID, err)
			}
		}
		return bumpIndex(txn, index, TableEvals)
	})
}

func checkEval(eval *structs.Evaluation) error {
	switch {
	case eval == nil:
		return errors.New("evaluation is nil")
	case eval.ID == "":
		return errors.New("evaluation has no ID")
	case eval.Namespace == "":
		return fmt.Errorf("evaluation %q has no namespace", eval.ID)
	case eval.JobID == "":
		return fmt.Errorf("evaluation %q has no job ID", eval.ID)
	}
	return nil
}

func upsertEval(txn *memdb.Txn, index uint64, eval *structs.Evaluation) error {
	raw, err := txn.First(TableEvals, indexID, eval.ID)
	if err != nil {
		return err
	}
	eval.CreateIndex = index
	if raw != nil {
		existing := raw.(*structs.Evaluation)
		eval.CreateIndex = existing.CreateIndex
		if eval.CreateTime == 0 {
			eval.CreateTime = existing.CreateTime
		}
	}
	eval.ModifyIndex = index
	return txn.Insert(TableEvals, eval)
}

// DeleteEvals removes evaluations and allocations, as garbage collection
// does. IDs that are not stored are skipped.
func (s *StateStore) DeleteEvals(index uint64, evalIDs, allocIDs []string) error {
	return s.write(func(txn *memdb.Txn) error {
		for _, id := range evalIDs {
			if _, err := txn.DeleteAll(TableEvals, indexID, id); err != nil {
				return fmt.Errorf("delete evaluation %q: %w", id, err)
			}
		}
		for _, id := range allocIDs {
			if _, err := txn.DeleteAll(TableAllocs, indexID, id); err != nil {
				return fmt.Errorf("delete allocation %q: %w", id, err)
			}
		}
		if err := deleteServicesBy(txn, index, indexAlloc, allocIDs); err != nil {
			return err
		}
		return bumpIndex(txn, index, TableEvals, TableAllocs)
	})
}

// EvalByID returns the evaluation, or nil if there is none.
func (r *reader) EvalByID(ws memdb.WatchSet, id string) (*structs.Evaluation, error) {
	raw, err := r.first(ws, TableEvals, indexID, id)
	if err != nil || raw == nil {
		return nil, wrapRead(err, "evaluation %q", id)
	}
	return raw.(*structs.Evaluation), nil
}

// EvalsByIDPrefix returns the evaluations of namespace (every namespace
// for AllNamespaces) whose ID starts with prefix, sorted by ID.
func (r *reader) EvalsByIDPrefix(ws memdb.WatchSet, namespace, prefix string) ([]*structs.Evaluation, error) {
	evals, err := list[*structs.Evaluation](r, ws, TableEvals, indexID+"_prefix", prefix)
	if err != nil {
		return nil, wrapRead(err, "evaluations with prefix %q", prefix)
	}
	return inNamespace(evals, namespace, func(e *structs.Evaluation) string { return e.Namespace }), nil
}

// Evals returns every evaluation, sorted by ID.
func (r *reader) Evals(ws memdb.WatchSet) ([]*structs.Evaluation, error) {
	evals, err := list[*structs.Evaluation](r, ws, TableEvals, indexID)
	return evals, wrapRead(err, "evaluations")
}

// EvalsByJob returns the evaluations of a job.
func (r *reader) EvalsByJob(ws memdb.WatchSet, namespace, jobID string) ([]*structs.Evaluation, error) {
	evals, err := list[*structs.Evaluation](r, ws, TableEvals, indexJob, namespace, jobID)
	return evals, wrapRead(err, "evaluations of job %q in namespace %q", jobID, namespace)
}

// inNamespace keeps the items of namespace, or all of them for
// AllNamespaces, in their order.
func inNamespace[T any](items []T, namespace string, namespaceOf func(T) string) []T {
	if namespace == AllNamespaces {
		return items
	}
	var out []T
	for _, item := range items {
		if namespaceOf(item) == namespace {
			out = append(out, item)
		}
	}
	return out
}
