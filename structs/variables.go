package structs

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Nomad Variables: small sets of key/value items stored at file-like paths
// in a namespace. The servers keep them encrypted (VariableEncrypted) in
// raft, the state store and snapshots; callers send and receive them in
// clear (VariableDecrypted).

// Bounds of a variable, as Nomad documents them.
const (
	// MaxVariableSize bounds the sum of the lengths of a variable's keys
	// and values.
	MaxVariableSize = 64 << 10
	// maxVariablePathLength bounds a path.
	maxVariablePathLength = 128
	// MinVariableLockTTL and MaxVariableLockTTL bound a lock's TTL and
	// lock delay.
	MinVariableLockTTL = 10 * time.Second
	MaxVariableLockTTL = 24 * time.Hour
)

// validVariablePath is what a variable path may be: URL-safe characters
// that do not clash with the "@" and "." a template's nomadVar uses.
var validVariablePath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_~/-]{1,128}$`) })

// ErrVariableNoItems is the refusal of a write of a variable without
// items; its text is the one Nomad answers, which Nomad's client matches.
var ErrVariableNoItems = errors.New("variable missing required Items object")

// VariableMetadata is what a list shows of a variable: everything but its
// items.
type VariableMetadata struct {
	Namespace   string
	Path        string
	CreateIndex uint64
	ModifyIndex uint64
	// CreateTime and ModifyTime are Unix nanoseconds.
	CreateTime int64
	ModifyTime int64
	// Lock is the lock held on the variable, nil when none is.
	Lock *VariableLock `json:",omitempty"`
}

// VariableLock is a lock on a variable. While it is held only a request
// naming its ID may change the variable. A lock not renewed within TTL is
// lost, and the variable stays locked LockDelay longer.
type VariableLock struct {
	ID        string
	TTL       time.Duration
	LockDelay time.Duration
}

// VariableItems are a variable's key/value pairs.
type VariableItems map[string]string

// Size is what MaxVariableSize bounds.
func (it VariableItems) Size() int {
	n := 0
	for k, v := range it {
		n += len(k) + len(v)
	}
	return n
}

// VariableDecrypted is a variable with its items in clear: what callers
// write and read, never what is stored.
type VariableDecrypted struct {
	VariableMetadata
	Items VariableItems
}

// VariableEncrypted is a variable as the servers store it: its items
// sealed with a root key (KeyID) of the keyring.
type VariableEncrypted struct {
	VariableMetadata
	VariableData
}

// VariableData is a variable's sealed items and the root key that sealed
// them.
type VariableData struct {
	// Data is the nonce followed by the AES-256-GCM ciphertext of the
	// items' JSON.
	Data  []byte
	KeyID string
}

// Copy returns a copy of v that shares nothing with it.
func (v *VariableEncrypted) Copy() *VariableEncrypted {
	if v == nil {
		return nil
	}
	c := *v
	c.Data = append([]byte(nil), v.Data...)
	if v.Lock != nil {
		lock := *v.Lock
		c.Lock = &lock
	}
	return &c
}

// Metadata returns a copy of the variable's metadata.
func (v *VariableEncrypted) Metadata() VariableMetadata {
	m := v.VariableMetadata
	if m.Lock != nil {
		lock := *m.Lock
		m.Lock = &lock
	}
	return m
}

// ValidateVariablePath reports what is wrong with path. Under the
// reserved top-level "nomad/" only "nomad/jobs" and what lies below it
// may be written, as in Nomad.
func ValidateVariablePath(path string) error {
	if path == "" {
		return errors.New("variable requires a path")
	}
	if !validVariablePath().MatchString(path) {
		return fmt.Errorf("invalid variable path %q: 1 to %d letters, digits and the characters - _ ~ /", path, maxVariablePathLength)
	}
	if strings.HasPrefix(path, "/") || strings.HasSuffix(path, "/") || strings.Contains(path, "//") {
		return fmt.Errorf("invalid variable path %q: no leading, trailing or double slash", path)
	}
	top, rest, _ := strings.Cut(path, "/")
	if top != "nomad" {
		return nil
	}
	if rest == "jobs" || strings.HasPrefix(rest, "jobs/") {
		return nil
	}
	return fmt.Errorf("invalid variable path %q: \"nomad/\" is reserved; only \"nomad/jobs\" and the paths below it may be written", path)
}

// Validate reports every problem with a variable about to be written.
// withoutItems allows no items (a lock taken on a variable that does not
// exist yet).
func (v *VariableDecrypted) Validate(withoutItems bool) error {
	var errs []error
	if v.Namespace == "" || v.Namespace == "*" || !ValidNamespaceName(v.Namespace) {
		errs = append(errs, fmt.Errorf("variable %q: invalid namespace %q", v.Path, v.Namespace))
	}
	errs = append(errs, ValidateVariablePath(v.Path))
	if len(v.Items) == 0 && !withoutItems {
		errs = append(errs, ErrVariableNoItems)
	}
	if size := v.Items.Size(); size > MaxVariableSize {
		errs = append(errs, fmt.Errorf("variable %q: items are %d bytes; variables are limited to %d bytes (64KiB) in total size", v.Path, size, MaxVariableSize))
	}
	for k := range v.Items {
		if k == "" {
			errs = append(errs, fmt.Errorf("variable %q: an item has an empty key", v.Path))
			break
		}
	}
	return errors.Join(errs...)
}

// ValidateLockTimes checks a lock's TTL and delay, as a lock is taken.
func (l *VariableLock) ValidateLockTimes() error {
	var errs []error
	if l.TTL < MinVariableLockTTL || l.TTL > MaxVariableLockTTL {
		errs = append(errs, fmt.Errorf("lock TTL %s is not between %s and %s", l.TTL, MinVariableLockTTL, MaxVariableLockTTL))
	}
	if l.LockDelay < MinVariableLockTTL || l.LockDelay > MaxVariableLockTTL {
		errs = append(errs, fmt.Errorf("lock delay %s is not between %s and %s", l.LockDelay, MinVariableLockTTL, MaxVariableLockTTL))
	}
	return errors.Join(errs...)
}
