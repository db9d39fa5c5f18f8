package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/nomad/stream"
)

// eventHeartbeatEvery is how long an idle stream waits before it sends a
// heartbeat, {}, so that clients and proxies know it is alive, as Nomad's
// does. A frame the consumer does not take within the limits'
// http_write_timeout (its connection's buffers are full: it stopped
// reading) ends the stream: the route is long-lived, so each write gets
// that deadline of its own.
const eventHeartbeatEvery = 10 * time.Second

// maxEventTopics bounds the topic filters of one request.
const maxEventTopics = 64

// eventTopics are the topics a filter may name: Drover's, and those of
// Nomad's that Drover has no objects for (a Nomad tool that asks for them
// gets no events rather than an error).
var eventTopics = []stream.Topic{
	stream.TopicAll, stream.TopicJob, stream.TopicEvaluation, stream.TopicAllocation,
	stream.TopicNode, stream.TopicNodePool,
	"Deployment", "Service", "ACLToken", "ACLPolicy", "ACLRole", "Namespace",
	"CSIVolume", "CSIPlugin", "HostVolume", "Operator",
}

// eventStream serves GET /v1/event/stream: the events of the server's
// state changes as newline-delimited JSON, {"Index":N,"Events":[...]} per
// raft index and {} as a heartbeat, until the client goes away. ?topic
// (repeatable, Topic or Topic:key, * for all), ?namespace and ?index
// (resume after it) select the events.
func (s *HTTPServer) eventStream(w http.ResponseWriter, r *http.Request) (any, error) {
	req, err := parseEventStreamRequest(r)
	if err != nil {
		return nil, err
	}
	srv, err := s.readServer(queryOptions{Region: r.URL.Query().Get("region")})
	if err != nil {
		return nil, err
	}
	req.Allow = s.eventAccess(r)
	sub, err := srv.SubscribeEvents(req)
	switch {
	case errors.Is(err, stream.ErrIndexGone):
		return nil, newHTTPError(http.StatusGone, "%v", err)
	case errors.Is(err, nomad.ErrEventsDisabled):
		return nil, newHTTPError(http.StatusNotImplemented, "%v", err)
	case err != nil:
		return nil, err
	}
	s.streamEvents(w, r, sub)
	return nil, nil
}

// eventAccess is the seam where ACLs decide, per event, what the request's
// token may read (Nomad: namespace read-job for Job, Evaluation and
// Allocation events, node:read for Node events). Drover has no ACLs yet:
// every event is allowed.
func (s *HTTPServer) eventAccess(*http.Request) func(*stream.Event) bool {
	return nil
}

// streamEvents writes the subscription's batches as they come until the
// client goes away, the server shuts down or the subscription ends; an
// ending subscription (the consumer fell behind, the state was restored)
// gets a last frame, {"Error":"..."}, saying why.
func (s *HTTPServer) streamEvents(w http.ResponseWriter, r *http.Request, sub *stream.Subscription) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if err := writeEventFrame(rc, w, nil); err != nil {
		return
	}
	var buf []byte
	for {
		batch, err := nextBatch(r.Context(), sub)
		switch {
		case r.Context().Err() != nil:
			return
		case errors.Is(err, context.DeadlineExceeded):
			buf = append(buf[:0], "{}\n"...)
		case err != nil:
			s.logger.Debug("event stream ended", "remote", r.RemoteAddr, "error", err)
			writeEventFrame(rc, w, errorFrame(err))
			return
		default:
			if buf, err = appendEventFrame(buf[:0], batch); err != nil {
				s.logger.Error("event stream ended", "error", err)
				writeEventFrame(rc, w, errorFrame(err))
				return
			}
		}
		if err := writeEventFrame(rc, w, buf); err != nil {
			s.logger.Debug("event stream consumer gone", "remote", r.RemoteAddr, "error", err)
			return
		}
	}
}

// nextBatch waits for the next batch for at most the heartbeat interval.
func nextBatch(ctx context.Context, sub *stream.Subscription) (*stream.Batch, error) {
	ctx, cancel := context.WithTimeout(ctx, eventHeartbeatEvery)
	defer cancel()
	return sub.Next(ctx)
}

// writeEventFrame writes one frame and flushes it to the client.
func writeEventFrame(rc *http.ResponseController, w http.ResponseWriter, frame []byte) error {
	if len(frame) > 0 {
		if _, err := w.Write(frame); err != nil {
			return err
		}
	}
	return rc.Flush()
}

// errorFrame is the last frame of a stream that the server ends.
func errorFrame(err error) []byte {
	return fmt.Appendf(nil, "{\"Error\":%s}\n", strconv.Quote(oneLine(err.Error())))
}

// parseEventStreamRequest reads ?topic, ?namespace and ?index.
func parseEventStreamRequest(r *http.Request) (stream.SubscribeRequest, error) {
	q := r.URL.Query()
	req := stream.SubscribeRequest{Namespace: parseNamespace(q)}
	if err := checkID("namespace", req.Namespace); err != nil {
		return req, err
	}
	if s := q.Get("index"); s != "" {
		index, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return req, badRequest("invalid index %q: must be a non-negative integer", s)
		}
		req.Index = index
	}
	topics := q["topic"]
	if len(topics) > maxEventTopics {
		return req, badRequest("too many topic filters: %d, the limit is %d", len(topics), maxEventTopics)
	}
	for _, t := range topics {
		topic, key, err := parseEventTopic(t)
		if err != nil {
			return req, err
		}
		if req.Topics == nil {
			req.Topics = map[stream.Topic][]string{}
		}
		req.Topics[topic] = append(req.Topics[topic], key)
	}
	return req, nil
}

// parseEventTopic reads one topic filter: "Topic" or "Topic:key", where
// either may be * for all.
func parseEventTopic(s string) (stream.Topic, string, error) {
	name, key, hasKey := strings.Cut(s, ":")
	topic := stream.Topic(name)
	if !slices.Contains(eventTopics, topic) {
		known := make([]string, len(eventTopics))
		for i, t := range eventTopics {
			known[i] = string(t)
		}
		return "", "", badRequest("invalid topic %q: unknown topic %q; known topics are %s", s, name, strings.Join(known, ", "))
	}
	if !hasKey {
		return topic, stream.Wildcard, nil
	}
	if err := checkID("key of topic "+name, key); err != nil {
		return "", "", err
	}
	return topic, key, nil
}
