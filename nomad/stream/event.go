// Package stream is the server's event broker. The FSM publishes the
// events it derives from each applied raft entry, one batch per raft
// index; the broker holds the latest batches in a bounded buffer, and
// subscriptions read them at their own pace, filtered by topic, key and
// namespace.
//
// Publishing never waits for a subscriber, nor does any subscriber's
// work: a batch is appended, the oldest dropped once the buffer holds more
// events than its size, and the batch left for the broker's dispatcher,
// which queues it, trimmed to what each wants, for the subscriptions whose
// filters select some of its events, and wakes those alone. A queue holds
// shared batches, at most a few buffer sizes of events: a subscription
// with more of its events waiting than that ends with ErrBehind, so a
// slow or stalled reader costs the server at most a few buffers' worth
// of pointers. A subscription that filters is never dropped for events it
// did not ask for.
package stream

import (
	"sync"
	"time"
)

// Topic is the kind of object an event is about, as Nomad names it.
type Topic string

// The topics Drover publishes events on.
const (
	TopicJob        Topic = "Job"
	TopicEvaluation Topic = "Evaluation"
	TopicAllocation Topic = "Allocation"
	TopicNode       Topic = "Node"
	TopicNodePool   Topic = "NodePool"
	TopicACLToken   Topic = "ACLToken"
	TopicACLPolicy  Topic = "ACLPolicy"
	TopicNamespace  Topic = "Namespace"

	// TopicAll, in a subscription, selects every topic.
	TopicAll Topic = "*"
)

// Wildcard is the key, in a subscription's topic filter, that selects every
// key of the topic.
const Wildcard = "*"

// Event types, as Nomad names them.
const (
	TypeJobRegistered   = "JobRegistered"
	TypeJobDeregistered = "JobDeregistered"
	// TypeJobBatchDeregistered is a job garbage collection removed.
	TypeJobBatchDeregistered = "JobBatchDeregistered"

	TypeEvaluationUpdated = "EvaluationUpdated"
	// TypeEvaluationPendingExpired is Drover's: a blocked evaluation gave
	// up placements that waited longer than max_pending_duration (its
	// PendingExpired grew).
	TypeEvaluationPendingExpired = "EvaluationPendingExpired"

	TypeAllocationUpdated             = "AllocationUpdated"
	TypeAllocationUpdateDesiredStatus = "AllocationUpdateDesiredStatus"
	TypePlanResult                    = "PlanResult"

	TypeNodeRegistration   = "NodeRegistration"
	TypeNodeDeregistration = "NodeDeregistration"
	TypeNodeEligibility    = "NodeEligibility"
	TypeNodeDrain          = "NodeDrain"
	TypeNodeEvent          = "NodeEvent"

	TypeACLTokenUpserted  = "ACLTokenUpserted"
	TypeACLTokenDeleted   = "ACLTokenDeleted"
	TypeACLPolicyUpserted = "ACLPolicyUpserted"
	TypeACLPolicyDeleted  = "ACLPolicyDeleted"
	TypeNamespaceUpserted = "NamespaceUpserted"
	TypeNamespaceDeleted  = "NamespaceDeleted"
)

// Event is one change to one object. The broker and every subscriber share
// it: nothing may modify an event once it is published.
type Event struct {
	Topic Topic
	Type  string
	// Key is the object's ID.
	Key string
	// Namespace is the object's namespace; empty for objects that belong
	// to none (nodes), which every subscription sees.
	Namespace string
	// FilterKeys are further keys a topic filter matches, such as the job
	// ID of an allocation.
	FilterKeys []string
	// Index is the raft index of the entry that made the change; Publish
	// sets it.
	Index uint64
	// Payload is the object as the state store holds it after the change
	// (before it, when Deleted), such as a *structs.Allocation. It is the
	// store's own copy: read-only.
	Payload any
	// Deleted says the change removed the object from the state.
	Deleted bool

	encodeOnce sync.Once
	encoded    []byte
	encodeErr  error
}

// Encoded returns the event as encode renders it. The first call renders
// it and every later one, from any subscriber, gets the same bytes: an
// event is encoded once however many subscribers send it. Every caller
// must pass an encoder that renders the same form.
func (e *Event) Encoded(encode func(*Event) ([]byte, error)) ([]byte, error) {
	e.encodeOnce.Do(func() { e.encoded, e.encodeErr = encode(e) })
	return e.encoded, e.encodeErr
}

// Batch is the events of one raft index. It is shared: read-only.
type Batch struct {
	Index  uint64
	Events []*Event
	// Published is when the FSM published the batch, right after it
	// applied the entry: what a consumer's lag is measured from.
	Published time.Time
}
