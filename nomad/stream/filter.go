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
