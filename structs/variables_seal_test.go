package structs

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestSealVariable_roundTripAndTampering(t *testing.T) {
	key, err := NewRootKey(time.Now())
	must.NoError(t, err)
	v := &VariableDecrypted{
		VariableMetadata: VariableMetadata{Namespace: "default", Path: "app/db", ModifyIndex: 7},
		Items:            VariableItems{"password": "plain-value"},
	}
	sealed, err := SealVariable(key, v)
	must.NoError(t, err)
	must.Eq(t, key.KeyID, sealed.KeyID)
	must.False(t, bytes.Contains(sealed.Data, []byte("plain-value")))
	again, err := SealVariable(key, v)
	must.NoError(t, err)
	must.NotEq(t, sealed.Data, again.Data, must.Sprint("two seals of the same items are alike: the nonce is not random"))

	opened, err := OpenVariable(key, sealed)
	must.NoError(t, err)
	must.Eq(t, v.Items, opened.Items)
	must.Eq(t, uint64(7), opened.ModifyIndex)

	moved := sealed.Copy()
	moved.Path = "app/other"
	_, err = OpenVariable(key, moved)
	must.Error(t, err, must.Sprint("a sealed value moved to another path opened"))

	flipped := sealed.Copy()
	flipped.Data[len(flipped.Data)-1] ^= 1
	_, err = OpenVariable(key, flipped)
	must.Error(t, err)

	other, err := NewRootKey(time.Now())
	must.NoError(t, err)
	_, err = OpenVariable(other, sealed)
	must.ErrorIs(t, err, ErrVariableKeyMismatch)
	forged := sealed.Copy()
	forged.KeyID = other.KeyID
	_, err = OpenVariable(other, forged)
	must.Error(t, err, must.Sprint("another key opened the variable"))

	short := sealed.Copy()
	short.Data = short.Data[:4]
	_, err = OpenVariable(key, short)
	must.ErrorContains(t, err, "too short")
}

func TestVariable_validate(t *testing.T) {
	ok := &VariableDecrypted{VariableMetadata: VariableMetadata{Namespace: "default", Path: "nomad/jobs/web"}, Items: VariableItems{"k": "v"}}
	must.NoError(t, ok.Validate(false))
	for name, v := range map[string]*VariableDecrypted{
		"no items":     {VariableMetadata: VariableMetadata{Namespace: "default", Path: "a"}},
		"wildcard ns":  {VariableMetadata: VariableMetadata{Namespace: "*", Path: "a"}, Items: VariableItems{"k": "v"}},
		"reserved":     {VariableMetadata: VariableMetadata{Namespace: "default", Path: "nomad/secrets"}, Items: VariableItems{"k": "v"}},
		"nomad alone":  {VariableMetadata: VariableMetadata{Namespace: "default", Path: "nomad"}, Items: VariableItems{"k": "v"}},
		"dot":          {VariableMetadata: VariableMetadata{Namespace: "default", Path: "a.b"}, Items: VariableItems{"k": "v"}},
		"too long":     {VariableMetadata: VariableMetadata{Namespace: "default", Path: strings.Repeat("a", 129)}, Items: VariableItems{"k": "v"}},
		"empty key":    {VariableMetadata: VariableMetadata{Namespace: "default", Path: "a"}, Items: VariableItems{"": "v"}},
		"too large":    {VariableMetadata: VariableMetadata{Namespace: "default", Path: "a"}, Items: VariableItems{"k": strings.Repeat("v", MaxVariableSize)}},
		"trailing /":   {VariableMetadata: VariableMetadata{Namespace: "default", Path: "a/"}, Items: VariableItems{"k": "v"}},
		"empty middle": {VariableMetadata: VariableMetadata{Namespace: "default", Path: "a//b"}, Items: VariableItems{"k": "v"}},
	} {
		must.Error(t, v.Validate(false), must.Sprint(name))
	}
	lock := &VariableDecrypted{VariableMetadata: VariableMetadata{Namespace: "default", Path: "a"}}
	must.NoError(t, lock.Validate(true), must.Sprint("a lock may be taken on a variable without items"))
	must.Error(t, (&VariableLock{TTL: time.Second, LockDelay: time.Minute}).ValidateLockTimes())
	must.NoError(t, (&VariableLock{TTL: 15 * time.Second, LockDelay: 15 * time.Second}).ValidateLockTimes())
}
