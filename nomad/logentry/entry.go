package logentry

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// Entry is the body of a raft log entry: one write to the state store.
type Entry interface {
	// MessageType is the type byte the entry is written with.
	MessageType() MessageType

	// Validate checks the entry's shape. The leader runs it before an
	// entry enters the log, so no path into the log can skip it.
	Validate() error

	// ApplyTo writes the entry to s at the entry's raft index. It must
	// depend only on the entry, the index and s, so that every server
	// ends with the same state.
	ApplyTo(s *state.StateStore, index uint64) error

	// WrittenEvals returns the evaluations the entry writes, if any.
	WrittenEvals() []*structs.Evaluation
}

// Encode renders an entry as a raft log entry.
func Encode(t MessageType, entry Entry) ([]byte, error) {
	if entry == nil {
		return nil, fmt.Errorf("encode %s entry: entry is nil", t)
	}
	if got := entry.MessageType(); got != t {
		return nil, fmt.Errorf("encode %s entry: got a %s entry", t, got)
	}
	body, err := json.Marshal(entry)
	if err != nil {
		return nil, fmt.Errorf("encode %s entry: %w", t, err)
	}
	return append([]byte{byte(t)}, body...), nil
}

// Decode parses a raft log entry.
func Decode(data []byte) (MessageType, Entry, error) {
	if len(data) == 0 {
		return 0, nil, errors.New("empty raft log entry")
	}
	t := MessageType(data[0])
	entry, err := New(t)
	if err != nil {
		return t, nil, err
	}
	if err := json.Unmarshal(data[1:], entry); err != nil {
		return t, nil, fmt.Errorf("decode %s entry: %w", t, err)
	}
	return t, entry, nil
}
