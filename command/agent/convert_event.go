package agent

import (
	"encoding/json"
	"fmt"
	"io"
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
		w.Payload.Job = jobToAPI(o)
	case *structs.Evaluation:
		w.Payload.Evaluation = evalToAPI(o)
	case *structs.Allocation:
		w.Payload.Allocation = allocWithoutJobToAPI(o)
	case *structs.Node:
		w.Payload.Node = nodeToAPI(o)
	case *structs.ACLToken:
		w.Payload.ACLToken = aclTokenToAPI(o)
		w.Payload.ACLToken.SecretID = ""
	case *structs.ACLPolicy:
		w.Payload.ACLPolicy = aclPolicyToAPI(o)
	case *structs.Namespace:
		w.Payload.Namespace = namespaceToAPI(o)
	default:
		return nil, fmt.Errorf("encode %s event %s of %q: payload of unknown type %T", e.Topic, e.Type, e.Key, e.Payload)
	}
	out, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encode %s event %s of %q: %w", e.Topic, e.Type, e.Key, err)
	}
	return out, nil
}

// writeEventFrame writes the frame of one batch, a line of NDJSON,
// {"Index":N,"Events":[...]}, straight from the events' shared encodings:
// a stream holds no copy of them. It encodes every event before it writes
// anything, so that a failed encoding leaves no partial line.
func writeEventFrame(w io.Writer, b *stream.Batch) (int, error) {
	encoded := make([][]byte, len(b.Events))
	for i, e := range b.Events {
		var err error
		if encoded[i], err = e.Encoded(encodeEvent); err != nil {
			return 0, err
		}
	}
	var head [64]byte
	h := append(head[:0], `{"Index":`...)
	h = strconv.AppendUint(h, b.Index, 10)
	h = append(h, `,"Events":[`...)
	written := 0
	write := func(p []byte) error {
		n, err := w.Write(p)
		written += n
		return err
	}
	if err := write(h); err != nil {
		return written, err
	}
	for i, e := range encoded {
		if i > 0 {
			if err := write(comma); err != nil {
				return written, err
			}
		}
		if err := write(e); err != nil {
			return written, err
		}
	}
	return written, write(frameEnd)
}

var (
	comma    = []byte{','}
	frameEnd = []byte("]}\n")
)
