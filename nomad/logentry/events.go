package logentry

import (
	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/nomad/stream"
	"github.com/drover-io/drover/structs"
)

// Events turns what an applied entry changed in the state into the
// events of the event stream. They depend only on the entry and the
// changes, which are the same on every server, so every server publishes
// the same stream.
func Events(entry Entry, changes memdb.Changes) []*stream.Event {
	var events []*stream.Event
	for _, c := range changes {
		if e := changeEvent(entry, c); e != nil {
			events = append(events, e)
		}
	}
	return events
}

// changeEvent is the event of one changed object, or nil for a change the
// stream does not carry: rows other than jobs, evaluations, allocations
// and nodes, and the garbage collection of evaluations and allocations
// (which Nomad does not publish either).
func changeEvent(entry Entry, c memdb.Change) *stream.Event {
	obj := c.After
	if c.Deleted() {
		obj = c.Before
	}
	switch o := obj.(type) {
	case *structs.Job:
		if c.Table != state.TableJobs {
			return nil // a job version row
		}
		return &stream.Event{Topic: stream.TopicJob, Type: jobEventType(entry), Key: o.ID, Namespace: o.Namespace, Payload: o, Deleted: c.Deleted()}
	case *structs.Evaluation:
		if c.Deleted() {
			return nil
		}
		return &stream.Event{Topic: stream.TopicEvaluation, Type: evalEventType(c), Key: o.ID, Namespace: o.Namespace, FilterKeys: []string{o.JobID}, Payload: o}
	case *structs.Allocation:
		if c.Deleted() {
			return nil
		}
		return &stream.Event{Topic: stream.TopicAllocation, Type: allocEventType(entry), Key: o.ID, Namespace: o.Namespace, FilterKeys: []string{o.JobID}, Payload: o}
	case *structs.Node:
		return &stream.Event{Topic: stream.TopicNode, Type: nodeEventType(entry, c.Deleted()), Key: o.ID, Payload: o, Deleted: c.Deleted()}
	case *structs.ACLToken:
		if c.Table != state.TableACLTokens {
			return nil
		}
		return objectEvent(c, stream.TopicACLToken, stream.TypeACLTokenUpserted, stream.TypeACLTokenDeleted, o.AccessorID)
	case *structs.ACLPolicy:
		if c.Table != state.TableACLPolicies {
			return nil
		}
		return objectEvent(c, stream.TopicACLPolicy, stream.TypeACLPolicyUpserted, stream.TypeACLPolicyDeleted, o.Name)
	case *structs.Namespace:
		if c.Table != state.TableNamespaces {
			return nil
		}
		return objectEvent(c, stream.TopicNamespace, stream.TypeNamespaceUpserted, stream.TypeNamespaceDeleted, o.Name)
	}
	return nil
}

// objectEvent is the event of a change to an object that is upserted or
// deleted, as ACL tokens, policies and namespaces are. Their events
// belong to no namespace; what a token may see of them the HTTP layer
// decides (a management token).
func objectEvent(c memdb.Change, topic stream.Topic, upserted, deleted, key string) *stream.Event {
	e := &stream.Event{Topic: topic, Type: upserted, Key: key, Payload: c.After}
	if c.Deleted() {
		e.Type, e.Payload, e.Deleted = deleted, c.Before, true
	}
	return e
}

// jobEventType names a change to a job: a stop or purge is a
// deregistration, garbage collection a batch deregistration (as Nomad's
// JobBatchDeregistered), any other change (a new version, a status the server
// derived) a registration, which Nomad's JobRegistered also covers.
func jobEventType(entry Entry) string {
	switch entry.(type) {
	case *JobDeregister:
		return stream.TypeJobDeregistered
	case *GCDelete:
		return stream.TypeJobBatchDeregistered
	}
	return stream.TypeJobRegistered
}

// allocEventType names a change to an allocation by what wrote it: a plan
// the leader committed, a change of what the server wants of it, or (the
// rest, chiefly client updates) an update.
func allocEventType(entry Entry) string {
	switch entry.(type) {
	case *AllocUpdate:
		return stream.TypePlanResult
	case *AllocDesiredStatus, *AllocTransition:
		return stream.TypeAllocationUpdateDesiredStatus
	}
	return stream.TypeAllocationUpdated
}

// nodeEventType names a change to a node by what wrote it.
func nodeEventType(entry Entry, deleted bool) string {
	switch entry.(type) {
	case *NodeRegister:
		return stream.TypeNodeRegistration
	case *NodeUpdateEligibility:
		return stream.TypeNodeEligibility
	case *NodeUpdateDrain:
		return stream.TypeNodeDrain
	}
	if deleted { // a purge, or garbage collection
		return stream.TypeNodeDeregistration
	}
	return stream.TypeNodeEvent // a status change, as Nomad's NodeEvent
}

// evalEventType is TypeEvaluationPendingExpired for an evaluation change
// that gave up placements for max_pending_duration, TypeEvaluationUpdated
// for any other.
func evalEventType(c memdb.Change) string {
	after, _ := c.After.(*structs.Evaluation)
	before, _ := c.Before.(*structs.Evaluation)
	if after != nil && pendingExpiredTotal(after) > pendingExpiredTotal(before) {
		return stream.TypeEvaluationPendingExpired
	}
	return stream.TypeEvaluationUpdated
}

func pendingExpiredTotal(e *structs.Evaluation) int {
	if e == nil {
		return 0
	}
	total := 0
	for _, n := range e.PendingExpired {
		total += n
	}
	return total
}
