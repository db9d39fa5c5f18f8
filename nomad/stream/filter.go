package stream

import "slices"

// filter is a subscription's request, ready to match events.
type filter struct {
	// topics maps a topic to the keys it selects; nil selects every
	// event. A topic whose set holds Wildcard selects all its events.
	topics    map[Topic]map[string]bool
	namespace string
	allow     func(*Event) bool
}

func newFilter(req SubscribeRequest) filter {
	f := filter{allow: req.Allow}
	if req.Namespace != "*" {
		f.namespace = req.Namespace
	}
	if len(req.Topics) == 0 {
		return f
	}
	f.topics = make(map[Topic]map[string]bool, len(req.Topics))
	for topic, keys := range req.Topics {
		set := f.topics[topic]
		if set == nil {
			set = map[string]bool{}
			f.topics[topic] = set
		}
		if len(keys) == 0 {
			set[Wildcard] = true
		}
		for _, k := range keys {
			set[k] = true
		}
	}
	if f.topics[TopicAll][Wildcard] {
		// Every topic, every key: as no topic filter at all, which
		// matches without a map lookup per event.
		f.topics = nil
	}
	return f
}

// matches reports whether the subscriber is to see e.
func (f *filter) matches(e *Event) bool {
	if f.namespace != "" && e.Namespace != "" && e.Namespace != f.namespace {
		return false
	}
	if f.topics != nil && !f.keySelected(f.topics[e.Topic], e) && !f.keySelected(f.topics[TopicAll], e) {
		return false
	}
	return f.allow == nil || f.allow(e)
}

// keySelected reports whether keys (a topic's set; nil for none) selects e.
func (f *filter) keySelected(keys map[string]bool, e *Event) bool {
	if keys == nil {
		return false
	}
	if keys[Wildcard] || keys[e.Key] {
		return true
	}
	return slices.ContainsFunc(e.FilterKeys, func(k string) bool { return keys[k] })
}

// apply returns the batch with only the events that match: the batch
// itself when all do, nil when none does.
func (f *filter) apply(b *Batch) *Batch {
	var kept []*Event
	for i, e := range b.Events {
		if f.matches(e) {
			if kept != nil {
				kept = append(kept, e)
			}
			continue
		}
		if kept == nil {
			kept = make([]*Event, i, len(b.Events))
			copy(kept, b.Events[:i])
		}
	}
	switch {
	case kept == nil:
		return b
	case len(kept) == 0:
		return nil
	}
	return &Batch{Index: b.Index, Events: kept, Published: b.Published}
}

// subscriptionIndex finds, for a batch, the subscriptions whose topic
// filters may select some of its events, without looking at the others:
// by topic and key, by topic, and those that select every topic. Their
// namespaces and Allow are checked after, on those alone.
type subscriptionIndex struct {
	members map[*Subscription]struct{}
	// every holds the subscriptions that select every event of every
	// topic; byTopic, those that select every event of one; byKey,
	// those that select a key of one (TopicAll for a key of any).
	every   subscriptionSet
	byTopic map[Topic]subscriptionSet
	byKey   map[Topic]map[string]subscriptionSet
}

type subscriptionSet map[*Subscription]struct{}

func newSubscriptionIndex() subscriptionIndex {
	return subscriptionIndex{
		members: map[*Subscription]struct{}{},
		every:   subscriptionSet{},
		byTopic: map[Topic]subscriptionSet{},
		byKey:   map[Topic]map[string]subscriptionSet{},
	}
}

func (x *subscriptionIndex) add(s *Subscription) {
	x.members[s] = struct{}{}
	x.each(s, func(set subscriptionSet) subscriptionSet {
		if set == nil {
			set = subscriptionSet{}
		}
		set[s] = struct{}{}
		return set
	})
}

// remove takes s off the index; removing one that is not on it is a no-op.
func (x *subscriptionIndex) remove(s *Subscription) {
	if _, ok := x.members[s]; !ok {
		return
	}
	delete(x.members, s)
	x.each(s, func(set subscriptionSet) subscriptionSet {
		delete(set, s)
		if len(set) == 0 {
			return nil
		}
		return set
	})
}

// each applies update to every set of the index s belongs in, storing
// what it returns (nil deletes the set).
func (x *subscriptionIndex) each(s *Subscription, update func(subscriptionSet) subscriptionSet) {
	f := &s.filter
	if f.topics == nil || f.topics[TopicAll][Wildcard] {
		if set := update(x.every); set != nil {
			x.every = set
		} else {
			x.every = subscriptionSet{}
		}
		return
	}
	for topic, keys := range f.topics {
		if keys[Wildcard] {
			storeSet(x.byTopic, topic, update(x.byTopic[topic]))
			continue
		}
		byKey := x.byKey[topic]
		if byKey == nil {
			byKey = map[string]subscriptionSet{}
			x.byKey[topic] = byKey
		}
		for key := range keys {
			storeSet(byKey, key, update(byKey[key]))
		}
		if len(byKey) == 0 {
			delete(x.byKey, topic)
		}
	}
}

func storeSet[K comparable](m map[K]subscriptionSet, k K, set subscriptionSet) {
	if set == nil {
		delete(m, k)
		return
	}
	m[k] = set
}

// all lists every subscription on the index.
func (x *subscriptionIndex) all() []*Subscription {
	out := make([]*Subscription, 0, len(x.members))
	for s := range x.members {
		out = append(out, s)
	}
	return out
}

// concerned appends to out, once each, the subscriptions whose topic
// filters select some event of b.
func (x *subscriptionIndex) concerned(b *Batch, out []*Subscription) []*Subscription {
	visit := func(set subscriptionSet) {
		for s := range set {
			if s.mark != b.Index {
				s.mark = b.Index
				out = append(out, s)
			}
		}
	}
	visitKeys := func(byKey map[string]subscriptionSet, e *Event) {
		if byKey == nil {
			return
		}
		visit(byKey[e.Key])
		for _, k := range e.FilterKeys {
			visit(byKey[k])
		}
	}
	visit(x.every)
	for _, e := range b.Events {
		visit(x.byTopic[e.Topic])
		visitKeys(x.byKey[e.Topic], e)
		visitKeys(x.byKey[TopicAll], e)
	}
	return out
}
