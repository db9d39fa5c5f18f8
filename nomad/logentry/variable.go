package logentry

import (
	"errors"
	"fmt"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// VariableWrite sets or deletes a variable, or takes or releases a lock
// on it. The variable's items are sealed before the entry is made: the
// log never holds them in clear.
type VariableWrite struct {
	state.VariableWrite
}

func (e *VariableWrite) MessageType() MessageType { return MsgVariableWrite }

func (e *VariableWrite) Validate() error {
	v := e.Var
	if v == nil {
		return invalidf("variable write: no variable")
	}
	var errs []error
	switch e.Op {
	case structs.VarOpSet, structs.VarOpLockAcquire:
		if v.Data != nil && !structs.ValidRootKeyID(v.KeyID) {
			errs = append(errs, fmt.Errorf("variable %q: sealed by no valid root key (%q)", v.Path, v.KeyID))
		}
		if e.Op == structs.VarOpSet && v.Data == nil {
			errs = append(errs, fmt.Errorf("variable %q: no sealed items", v.Path))
		}
		if e.Op == structs.VarOpLockAcquire && (v.Lock == nil || v.Lock.ID == "") {
			errs = append(errs, fmt.Errorf("variable %q: a lock taken needs its ID", v.Path))
		}
	case structs.VarOpDelete, structs.VarOpLockRelease:
	default:
		errs = append(errs, fmt.Errorf("variable write: unknown operation %q", e.Op))
	}
	if v.Namespace == "" {
		errs = append(errs, fmt.Errorf("variable %q: no namespace", v.Path))
	}
	errs = append(errs, structs.ValidateVariablePath(v.Path))
	if err := errors.Join(errs...); err != nil {
		return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, err)
	}
	return nil
}

func (e *VariableWrite) ApplyTo(s *state.StateStore, index uint64) error {
	return s.ApplyVariableWrite(index, &e.VariableWrite)
}

func (e *VariableWrite) WrittenEvals() []*structs.Evaluation { return nil }

// VariablesRekey stores variables sealed anew with the active root key,
// each only if it has not changed since it was read.
type VariablesRekey struct {
	Vars []*structs.VariableEncrypted
}

func (e *VariablesRekey) MessageType() MessageType { return MsgVariablesRekey }

func (e *VariablesRekey) Validate() error {
	if len(e.Vars) == 0 {
		return invalidf("variables rekey: no variables")
	}
	for i, v := range e.Vars {
		if v == nil || v.Data == nil || !structs.ValidRootKeyID(v.KeyID) {
			return invalidf("variables rekey: variable %d has no sealed items or root key", i)
		}
	}
	return nil
}

func (e *VariablesRekey) ApplyTo(s *state.StateStore, index uint64) error {
	return s.RekeyVariables(index, e.Vars)
}

func (e *VariablesRekey) WrittenEvals() []*structs.Evaluation { return nil }
