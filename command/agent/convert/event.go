package convert

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/nomad/stream"
	"github.com/drover-io/drover/structs"
)

// eventWire is an event of the event stream as Nomad's JSON has it.
type eventWire struct {
	Topic      stream.Topic
	Type       string
	Key        string
	Namespace  string
	FilterKeys []string
	Index      uint64
	Payload    eventPayload
}

// eventPayload holds the one object an event is about, under the name of
// its kind, in its wire form: the form the HTTP API reads it in, computed
// fields (MaxRunDeadline, MaxRunExceeded) included.
type eventPayload struct {
	Job        *api.Job        `json:",omitempty"`
	Evaluation *api.Evaluation `json:",omitempty"`
	// Allocation leaves out the allocation's job, as Nomad's events do,
	// to keep them small: the job is one request away, or in the Job
	// topic.
	Allocation *api.Allocation `json:",omitempty"`
	Node       *api.Node       `json:",omitempty"`
	// ACLToken leaves out the token's SecretID, as Nomad's events do.
	ACLToken  *api.ACLToken  `json:",omitempty"`
	ACLPolicy *api.ACLPolicy `json:",omitempty"`
	Namespace *api.Namespace `json:",omitempty"`
	// Deleted says a job was purged (Nomad's JobDeregistered), or a node
	// removed, rather than stopped or changed.
	Deleted bool `json:",omitempty"`
}

// encodeEvent renders an event as the stream sends it. The broker caches
// the result per event (stream.Event.Encoded), so each event is converted
// once however many subscribers receive it.
func encodeEvent(e *stream.Event) ([]byte, error) {
	w := eventWire{
		Topic:      e.Topic,
		Type:       e.Type,
		Key:        e.Key,
		Namespace:  e.Namespace,
		FilterKeys: e.FilterKeys,
		Index:      e.Index,
		Payload:    eventPayload{Deleted: e.Deleted},
	}
	switch o := e.Payload.(type) {
	case *structs.Job:
		w.Payload.Job = JobToAPI(o)
	case *structs.Evaluation:
		w.Payload.Evaluation = EvalToAPI(o)
	case *structs.Allocation:
		w.Payload.Allocation = allocWithoutJobToAPI(o)
	case *structs.Node:
		w.Payload.Node = NodeToAPI(o)
	case *structs.ACLToken:
		w.Payload.ACLToken = ACLTokenToAPI(o)
		w.Payload.ACLToken.SecretID = ""
	case *structs.ACLPolicy:
		w.Payload.ACLPolicy = ACLPolicyToAPI(o)
	case *structs.Namespace:
		w.Payload.Namespace = NamespaceToAPI(o)
	default:
		return nil, fmt.Errorf("encode %s event %s of %q: payload of unknown type %T", e.Topic, e.Type, e.Key, e.Payload)
	}
	out, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encode %s event %s of %q: %w", e.Topic, e.Type, e.Key, err)
	}
	return out, nil
}

// AppendEventFrame appends the frame of one batch, a line of NDJSON,
// {"Index":N,"Events":[...]}, to buf, from the events' shared encodings.
// It encodes every event before it appends anything, so that a failed
// encoding leaves buf as it was: no partial line.
func AppendEventFrame(buf []byte, b *stream.Batch) ([]byte, error) {
	size := len(`{"Index":,"Events":[]}`) + 21
	for _, e := range b.Events {
		encoded, err := e.Encoded(encodeEvent)
		if err != nil {
			return buf, err
		}
		size += len(encoded) + 1
	}
	buf = slices.Grow(buf, size)
	buf = append(buf, `{"Index":`...)
	buf = strconv.AppendUint(buf, b.Index, 10)
	buf = append(buf, `,"Events":[`...)
	for i, e := range b.Events {
		if i > 0 {
			buf = append(buf, ',')
		}
		encoded, _ := e.Encoded(encodeEvent) // encoded above
		buf = append(buf, encoded...)
	}
	return append(buf, "]}\n"...), nil
}
