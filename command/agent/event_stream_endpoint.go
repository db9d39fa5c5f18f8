package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
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

// eventWriteGap is the least time between two wake-ups of one stream. An
// event after a quiet spell goes out at once; during a burst of writes a
// stream sends what piled up in the gap in one write instead of one write
// per raft index, which bounds what each consumer costs the server (a
// wake-up and a write per gap, not per event) and keeps the FSM's pace
// its own. While the burst lasts (each wake-up finds frames ready), the
// gap doubles, up to maxEventWriteGap: a write's cost is mostly its
// system calls, whatever it carries, so a hundred streams of every event
// of a busy cluster cost the server a quarter of the writes, for a
// latency that stays below what a person watching notices.
// maxEventWrite bounds one write (the rest waits for the next gap). An
// idle consumer costs the server its connection and little more.
const (
	eventWriteGap    = 10 * time.Millisecond
	maxEventWriteGap = 40 * time.Millisecond
	maxEventWrite    = 64 << 10
)

// maxEventTopics bounds the topic filters of one request.
const maxEventTopics = 64

// eventTopics are the topics a filter may name: Drover's, and those of
// Nomad's that Drover has no objects for (a Nomad tool that asks for them
// gets no events rather than an error).
var eventTopics = []stream.Topic{
	stream.TopicAll, stream.TopicJob, stream.TopicEvaluation, stream.TopicAllocation,
	stream.TopicNode, stream.TopicNodePool, stream.TopicACLToken, stream.TopicACLPolicy,
	stream.TopicNamespace,
	"Deployment", "Service", "ACLRole", "CSIVolume", "CSIPlugin", "HostVolume", "Operator",
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
	srv, err := s.readServer(httpserver.QueryOptions{Region: r.URL.Query().Get("region")})
	if err != nil {
		return nil, err
	}
	req.Allow = s.eventAccess(r)
	sub, err := srv.SubscribeEvents(req)
	switch {
	case errors.Is(err, stream.ErrIndexGone):
		return nil, httpserver.NewError(http.StatusGone, "%v", err)
	case errors.Is(err, nomad.ErrEventsDisabled):
		return nil, httpserver.NewError(http.StatusNotImplemented, "%v", err)
	case err != nil:
		return nil, err
	}
	defer sub.Close()
	s.streamEvents(w, r, sub)
	return nil, nil
}

// eventAccess decides, per event, what the request's token may read, as
// Nomad does: namespace read-job for Job, Evaluation and Allocation events,
// node:read for Node and NodePool events, and a management token for any
// other topic. It is nil, no check, for a management token.
func (s *HTTPServer) eventAccess(r *http.Request) func(*stream.Event) bool {
	a := requestIdentity(r).acl
	if a.IsManagement() {
		// Everything (as when ACLs are off): no check per event.
		return nil
	}
	return func(e *stream.Event) bool {
		switch e.Topic {
		case stream.TopicJob, stream.TopicEvaluation, stream.TopicAllocation:
			return a.AllowNamespaceOperation(e.Namespace, acl.CapReadJob)
		case stream.TopicNode, stream.TopicNodePool:
			return a.AllowNodeRead()
		}
		return a.IsManagement()
	}
}

// streamEvents writes the subscription's batches as they come until the
// client goes away, the server shuts down or the subscription ends; an
// ending subscription (the consumer fell behind, the state was restored)
// gets a last frame, {"Error":"..."}, saying why.
func (s *HTTPServer) streamEvents(w http.ResponseWriter, r *http.Request, sub *stream.Subscription) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/json")
	if r.ProtoMajor == 1 && r.ProtoMinor >= 1 {
		// Not chunked: the body is the frames, until the connection
		// closes. net/http sends a chunked write larger than its 4 KiB
		// buffer as three system calls and TCP segments (the buffer
		// filled behind the chunk's size line, the rest, the closing
		// CRLF at the flush), one without chunking: for a hundred
		// streams of every event, a third of the writes, and most of
		// what the server spends on them.
		w.Header().Set("Transfer-Encoding", "identity")
	}
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return
	}
	ctx := r.Context()
	gap := eventWriteGap
	for {
		batch, err := sub.TryNext()
		heartbeat := false
		if batch == nil && err == nil {
			gap = eventWriteGap // quiet: the next burst starts afresh
			err = waitForEvents(ctx, sub)
			switch {
			case ctx.Err() != nil:
				return
			case errors.Is(err, context.DeadlineExceeded):
				heartbeat, err = true, nil
			case err == nil:
				batch, err = sub.TryNext()
			}
		}
		if batch == nil && err == nil && !heartbeat {
			// Woken with nothing to send (the broker wakes a stream
			// only for events it sends, but a wake-up may outlive the
			// batch it was for): the same pause all the same, so that
			// a stream wakes at most once a gap.
			if !pause(ctx, eventWriteGap) {
				return
			}
			continue
		}
		var werr error
		end := err    // ends the stream once what came before it is written
		more := false // frames are left that one write could not take
		switch {
		case heartbeat:
			_, werr = w.Write(heartbeatFrame)
		case batch != nil:
			werr, end, more = writeReadyFrames(w, batch, sub)
		}
		if werr == nil && end != nil {
			s.logger.Debug("event stream ended", "remote", r.RemoteAddr, "error", end)
			_, werr = w.Write(errorFrame(end))
		}
		if werr == nil {
			werr = rc.Flush()
		}
		if werr != nil {
			s.logger.Debug("event stream consumer gone", "remote", r.RemoteAddr, "error", werr)
			return
		}
		switch {
		case end != nil:
			return
		case more:
			// A full write: the gap bounds how often a stream wakes,
			// not how much it sends, so the rest goes out at once.
			continue
		case !pause(ctx, gap):
			return
		}
		gap = min(2*gap, maxEventWriteGap)
	}
}

var heartbeatFrame = []byte("{}\n")

// writeReadyFrames writes the frame of batch and of every batch after it
// that is ready now, up to maxEventWrite bytes (a larger frame goes
// whole), in one write: each write of a response is a chunk of its own and
// one or more system calls, so one per wake-up, however many events it
// carries, is what keeps a hundred streams of a busy cluster cheap. The
// frames are assembled in a pooled buffer, so a stream holds no bytes of
// its own between writes. It returns the write's error, the error that
// ends the subscription, if one came, and whether it stopped at
// maxEventWrite, leaving what else may be ready for the next write.
func writeReadyFrames(w io.Writer, batch *stream.Batch, sub *stream.Subscription) (werr, end error, more bool) {
	bufp := frameBufs.Get().(*[]byte)
	defer putFrameBuf(bufp)
	buf := (*bufp)[:0]
	for {
		if buf, end = convert.AppendEventFrame(buf, batch); end != nil {
			break
		}
		if len(buf) >= maxEventWrite {
			more = true
			break
		}
		if batch, end = sub.TryNext(); batch == nil || end != nil {
			break
		}
	}
	*bufp = buf
	if len(buf) > 0 {
		_, werr = w.Write(buf)
	}
	return werr, end, more
}

// frameBufs holds the buffers that writeReadyFrames assembles writes in.
var frameBufs = sync.Pool{New: func() any {
	buf := make([]byte, 0, 16<<10)
	return &buf
}}

// putFrameBuf returns a buffer to frameBufs, unless one outsized frame
// grew it far past a write's usual size.
func putFrameBuf(bufp *[]byte) {
	if cap(*bufp) <= 2*maxEventWrite {
		frameBufs.Put(bufp)
	}
}

// pause waits d, or until ctx ends, which it reports as false.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// waitForEvents waits for a publish after what sub has read, for at most
// the heartbeat interval (context.DeadlineExceeded).
func waitForEvents(ctx context.Context, sub *stream.Subscription) error {
	ctx, cancel := context.WithTimeout(ctx, eventHeartbeatEvery)
	defer cancel()
	return sub.Wait(ctx)
}

// errorFrame is the last frame of a stream that the server ends.
func errorFrame(err error) []byte {
	return fmt.Appendf(nil, "{\"Error\":%s}\n", strconv.Quote(httpserver.OneLine(err.Error())))
}

// parseEventStreamRequest reads ?topic, ?namespace and ?index.
func parseEventStreamRequest(r *http.Request) (stream.SubscribeRequest, error) {
	q := r.URL.Query()
	req := stream.SubscribeRequest{Namespace: httpserver.ParseNamespace(q)}
	if err := httpserver.CheckID("namespace", req.Namespace); err != nil {
		return req, err
	}
	index, err := httpserver.ParseIndex(q)
	if err != nil {
		return req, err
	}
	req.Index = index
	topics := q["topic"]
	if len(topics) > maxEventTopics {
		return req, httpserver.BadRequest("too many topic filters: %d, the limit is %d", len(topics), maxEventTopics)
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
// either may be * for all. A filter with more colons is refused, as
// Nomad refuses it.
func parseEventTopic(s string) (stream.Topic, string, error) {
	name, key, hasKey := strings.Cut(s, ":")
	if strings.Contains(key, ":") {
		return "", "", httpserver.BadRequest("Invalid key value pair for topic %q: a filter is Topic or Topic:Key, with one colon", s)
	}
	topic := stream.Topic(name)
	if !slices.Contains(eventTopics, topic) {
		known := make([]string, len(eventTopics))
		for i, t := range eventTopics {
			known[i] = string(t)
		}
		return "", "", httpserver.BadRequest("invalid topic %q: unknown topic %q; known topics are %s", s, name, strings.Join(known, ", "))
	}
	if !hasKey {
		return topic, stream.Wildcard, nil
	}
	if err := httpserver.CheckID("key of topic "+name, key); err != nil {
		return "", "", err
	}
	return topic, key, nil
}
