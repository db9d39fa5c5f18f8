package nomad

import (
	"errors"
	"fmt"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// Variables are sealed on the leader, before their entry enters the raft
// log, with the keyring's active root key, and opened wherever they are
// read with the key that sealed them, which the keyring keeps while any
// variable needs it (see DeleteRootKey).

// sealVariable seals v's items with st's active root key.
func sealVariable(st *state.StateStore, v *structs.VariableDecrypted) (*structs.VariableEncrypted, error) {
	key, err := st.ActiveRootKey(nil)
	if err != nil {
		return nil, err
	}
	if key == nil {
		return nil, errors.New("encrypt variable: the keyring has no key yet (the leader makes one as it takes office)")
	}
	return structs.SealVariable(key, v)
}

// openVariable opens v with the root key of st that sealed it. A lock
// taken on a variable that had no items stores none: it opens empty.
func openVariable(st *state.StateStore, v *structs.VariableEncrypted) (*structs.VariableDecrypted, error) {
	if v.Data == nil {
		return &structs.VariableDecrypted{VariableMetadata: v.Metadata(), Items: structs.VariableItems{}}, nil
	}
	key, err := st.RootKeyByID(nil, v.KeyID)
	if err != nil {
		return nil, err
	}
	if key == nil {
		return nil, fmt.Errorf("decrypt variable %q: its root key %s is not in the keyring", v.Path, v.KeyID)
	}
	return structs.OpenVariable(key, v)
}

// visibleVariable is what a caller who may not read the variable sees of
// it, in a conflict's answer: its metadata only.
func visibleVariable(a *acl.ACL, v *structs.VariableDecrypted) *structs.VariableDecrypted {
	if v == nil || a.AllowVariableOperation(v.Namespace, v.Path, acl.VariablesRead) {
		return v
	}
	return &structs.VariableDecrypted{VariableMetadata: v.VariableMetadata}
}
