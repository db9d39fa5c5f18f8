package convert

import (
	"fmt"
	"time"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// VariableToAPI is a variable on the wire; nil Items stay nil (a lock's
// release answers the metadata only).
func VariableToAPI(v *structs.VariableDecrypted) *api.Variable {
	if v == nil {
		return nil
	}
	m := VariableMetadataToAPI(&v.VariableMetadata)
	out := &api.Variable{
		Namespace: m.Namespace, Path: m.Path,
		CreateIndex: m.CreateIndex, ModifyIndex: m.ModifyIndex,
		CreateTime: m.CreateTime, ModifyTime: m.ModifyTime,
		Lock: m.Lock,
	}
	if v.Items != nil {
		out.Items = api.VariableItems(v.Items)
	}
	return out
}

// VariableMetadataToAPI is a variable's metadata on the wire.
func VariableMetadataToAPI(m *structs.VariableMetadata) *api.VariableMetadata {
	out := &api.VariableMetadata{
		Namespace: m.Namespace, Path: m.Path,
		CreateIndex: m.CreateIndex, ModifyIndex: m.ModifyIndex,
		CreateTime: m.CreateTime, ModifyTime: m.ModifyTime,
	}
	if l := m.Lock; l != nil {
		out.Lock = &api.VariableLock{ID: l.ID, TTL: l.TTL.String(), LockDelay: l.LockDelay.String()}
	}
	return out
}

// VariableFromAPI is the variable a write sends. Its lock's TTL and delay
// are Go durations; empty ones are left to the server's defaults.
func VariableFromAPI(v *api.Variable) (*structs.VariableDecrypted, error) {
	out := &structs.VariableDecrypted{
		VariableMetadata: structs.VariableMetadata{Namespace: v.Namespace, Path: v.Path},
		Items:            structs.VariableItems(v.Items),
	}
	if l := v.Lock; l != nil {
		lock := &structs.VariableLock{ID: l.ID}
		var err error
		if lock.TTL, err = optionalDuration(l.TTL); err != nil {
			return nil, fmt.Errorf("lock TTL: %w", err)
		}
		if lock.LockDelay, err = optionalDuration(l.LockDelay); err != nil {
			return nil, fmt.Errorf("lock delay: %w", err)
		}
		out.Lock = lock
	}
	return out, nil
}

func optionalDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as \"15s\"", s)
	}
	return d, nil
}
