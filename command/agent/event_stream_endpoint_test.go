package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/go-hclog"
	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/nomad/stream"
	"github.com/drover-io/drover/structs"
)

// streamTimeout bounds how long a test waits for an event it expects.
const streamTimeout = 30 * time.Second

// officialClient is Nomad's own Go client, pointed at a.
func officialClient(t *testing.T, a *Agent) *nomadapi.Client {
	t.Helper()
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)
	return client
}

// eventStream subscribes to a's event stream with the official client.
func eventStream(t *testing.T, a *Agent, topics map[nomadapi.Topic][]string, index uint64) <-chan *nomadapi.Events {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch, err := officialClient(t, a).EventStream().Stream(ctx, topics, index, nil)
	must.NoError(t, err)
	return ch
}

// collectEvents reads frames until done says the events so far are
// enough, checking that frames come in index order and that each event
// carries its frame's index.
func collectEvents(t *testing.T, ch <-chan *nomadapi.Events, done func([]nomadapi.Event) bool) []nomadapi.Event {
	t.Helper()
	timeout := time.After(streamTimeout)
	var got []nomadapi.Event
	var last uint64
	for !done(got) {
		select {
		case frame, ok := <-ch:
			must.True(t, ok, must.Sprintf("stream closed after %s", eventLines(got)))
			must.NoError(t, frame.Err)
			must.Greater(t, last, frame.Index, must.Sprint("frames in index order"))
			last = frame.Index
			for _, e := range frame.Events {
				must.Eq(t, frame.Index, e.Index)
				got = append(got, e)
			}
		case <-timeout:
			t.Fatalf("timed out; events so far: %s", eventLines(got))
		}
	}
	return got
}

func eventLine(e nomadapi.Event) string { return fmt.Sprintf("%s %s %s", e.Topic, e.Type, e.Key) }

func eventLines(events []nomadapi.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = eventLine(e)
	}
	return out
}

// hasEvent is a done func for collectEvents: an event with the line.
func hasEvent(line string) func([]nomadapi.Event) bool {
	return func(events []nomadapi.Event) bool { return slices.Contains(eventLines(events), line) }
}

// inOrder asserts that want appears in got in that order, other events
// (what the scheduler and leader add) in between.
func inOrder(t *testing.T, got []string, want ...string) {
	t.Helper()
	i := 0
	for _, line := range got {
		if i < len(want) && line == want[i] {
			i++
		}
	}
	must.Eq(t, len(want), i, must.Sprintf("want %q in this order within %q", want, got))
}

// TestEventStream_OfficialClientJobLife holds that Nomad's Go client reads
// the events of a job's whole life, in index order, with each object in
// its wire form as payload.
func TestEventStream_OfficialClientJobLife(t *testing.T) {
	a := testAgent(t)
	ch := eventStream(t, a, nil, 0)

	node := upsertNode(t, a, structs.GenerateUUID(), "node-1")
	reg := registerJob(t, a, batchJobJSON("life"))
	events := collectEvents(t, ch, func(events []nomadapi.Event) bool {
		return slices.ContainsFunc(events, func(e nomadapi.Event) bool { return e.Type == "PlanResult" })
	})
	i := slices.IndexFunc(events, func(e nomadapi.Event) bool { return e.Type == "PlanResult" })
	alloc, err := events[i].Allocation()
	must.NoError(t, err)
	must.Eq(t, "life", alloc.JobID)
	must.Nil(t, alloc.Job, must.Sprint("allocation events leave the job out"))
	must.Eq(t, []string{"life"}, events[i].FilterKeys)

	_, err = a.Server().UpdateAllocsFromClient(context.Background(), []*structs.Allocation{{
		ID: alloc.ID, ClientStatus: structs.AllocClientStatusComplete, ClientDescription: structs.AllocTimeoutReasonMaxRunDuration,
	}})
	must.NoError(t, err)
	_, _, err = officialClient(t, a).Jobs().Deregister("life", false, nil)
	must.NoError(t, err)
	events = append(events, collectEvents(t, ch, hasEvent("Job JobDeregistered life"))...)

	inOrder(t, eventLines(events),
		"Node NodeRegistration "+node.ID,
		"Job JobRegistered life",
		"Evaluation EvaluationUpdated "+reg.EvalID,
		"Allocation PlanResult "+alloc.ID,
		"Allocation AllocationUpdated "+alloc.ID,
		"Job JobDeregistered life",
	)
	j := slices.IndexFunc(events, func(e nomadapi.Event) bool { return e.Type == "AllocationUpdated" })
	updated, err := events[j].Allocation()
	must.NoError(t, err)
	must.Eq(t, "complete", updated.ClientStatus)
	// Drover's own fields ride in the payload, which the official client
	// decodes without them.
	payload := events[j].Payload["Allocation"].(map[string]any)
	must.Eq[any](t, true, payload["MaxRunExceeded"])
	must.Eq[any](t, float64(10*time.Second), payload["MaxRunDuration"])
	must.Positive(t, payload["MaxRunDeadline"].(float64))

	job, err := events[slices.IndexFunc(events, func(e nomadapi.Event) bool { return e.Type == "JobDeregistered" })].Job()
	must.NoError(t, err)
	must.True(t, *job.Stop)
}

// TestEventStream_TopicFilters holds that topic, key and namespace filters
// select the events they name, the job ID of an allocation included.
func TestEventStream_TopicFilters(t *testing.T) {
	a := testAgent(t)
	onlyB := eventStream(t, a, map[nomadapi.Topic][]string{nomadapi.TopicJob: {"b"}}, 0)
	bAllocs := eventStream(t, a, map[nomadapi.Topic][]string{nomadapi.TopicAllocation: {"b"}}, 0)
	nodes := eventStream(t, a, map[nomadapi.Topic][]string{nomadapi.TopicNode: nil}, 0)
	client := officialClient(t, a)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	otherNS, err := client.EventStream().Stream(ctx, nil, 0, &nomadapi.QueryOptions{Namespace: "other"})
	must.NoError(t, err)

	node := upsertNode(t, a, structs.GenerateUUID(), "node-1")
	registerJob(t, a, batchJobJSON("a"))
	registerJob(t, a, batchJobJSON("b"))

	got := collectEvents(t, onlyB, hasEvent("Job JobRegistered b"))
	for _, e := range got {
		must.Eq(t, "b", e.Key, must.Sprintf("only job b: %s", eventLines(got)))
	}
	got = collectEvents(t, bAllocs, func(events []nomadapi.Event) bool { return len(events) > 0 })
	alloc, err := got[0].Allocation()
	must.NoError(t, err)
	must.Eq(t, "b", alloc.JobID)
	got = collectEvents(t, nodes, func(events []nomadapi.Event) bool { return len(events) > 0 })
	must.Eq(t, []string{"Node NodeRegistration " + node.ID}, eventLines(got))
	// Another namespace sees the node, which is in none, and none of the
	// jobs of the default namespace.
	got = collectEvents(t, otherNS, func(events []nomadapi.Event) bool { return len(events) > 0 })
	must.Eq(t, []string{"Node NodeRegistration " + node.ID}, eventLines(got))
}

// TestEventStream_ResumeFromIndex holds that a subscription with an index
// gets only the events after it, and that one whose index the buffer no
// longer covers is refused with a reason.
func TestEventStream_ResumeFromIndex(t *testing.T) {
	a := testAgent(t, func(c *config.Config) {
		c.Server.EventBufferSize = 5
		c.Server.NumSchedulers = new(0)
	})
	first := registerJob(t, a, batchJobJSON("first"))
	registerJob(t, a, batchJobJSON("second"))

	got := collectEvents(t, eventStream(t, a, map[nomadapi.Topic][]string{nomadapi.TopicJob: nil}, first.Index), hasEvent("Job JobRegistered second"))
	must.Eq(t, []string{"Job JobRegistered second"}, eventLines(got))
	must.Greater(t, first.Index, got[0].Index)

	for i := range 5 {
		registerJob(t, a, batchJobJSON(fmt.Sprintf("more-%d", i)))
	}
	_, err := officialClient(t, a).EventStream().Stream(context.Background(), nil, first.Index, nil)
	must.ErrorContains(t, err, "410")
	must.ErrorContains(t, err, fmt.Sprintf("events after index %d were dropped", first.Index))
}

// TestEventStream_StalledConsumerDropped holds that a consumer that stops
// reading holds up no write, and that its stream ends: more of its events
// than the broker lets wait for one subscription (four buffers) piled up.
func TestEventStream_StalledConsumerDropped(t *testing.T) {
	a := testAgent(t, func(c *config.Config) {
		c.Server.EventBufferSize = 5
		c.Server.NumSchedulers = new(0)
	})
	resp, err := http.Get("http://" + a.HTTPAddr() + "/v1/event/stream?topic=Job")
	must.NoError(t, err)
	defer resp.Body.Close()
	must.Eq(t, http.StatusOK, resp.StatusCode)

	// Jobs with a large meta make frames far larger than what the
	// connection's buffers hold, so the stream's writes block while
	// nobody reads. The writes must go on all the same.
	const jobs = 40
	// Two values of 120 KiB: one meta value becomes an environment
	// variable, which may not pass 128 KiB.
	big := strings.Repeat("x", 120<<10)
	start := time.Now()
	var lastIndex uint64
	for i := range jobs {
		job := batchJobJSON(fmt.Sprintf("big-%d", i))
		job["Meta"] = map[string]string{"blob": big, "blob2": big}
		lastIndex = registerJob(t, a, job).Index
	}
	t.Logf("%d registrations with a stalled consumer took %s", jobs, time.Since(start))

	// Reading now, the consumer gets what was on its way and then the
	// end of the stream: its place in the buffer is gone.
	lines, frames := 0, 0
	var last string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		lines++
		last = sc.Text()
		if strings.HasPrefix(last, `{"Index"`) {
			frames++
		}
	}
	t.Logf("the stalled consumer read %d lines, %d frames, the last %.60q", lines, frames, last)
	must.Less(t, jobs, frames, must.Sprintf("the consumer was dropped before it got every job (%d lines)", lines))
	if strings.HasPrefix(last, `{"Error"`) {
		must.StrContains(t, last, "fell behind")
	}
	// The server goes on serving streams.
	after := eventStream(t, a, map[nomadapi.Topic][]string{nomadapi.TopicJob: {"after"}}, lastIndex)
	registerJob(t, a, batchJobJSON("after"))
	collectEvents(t, after, hasEvent("Job JobRegistered after"))
}

// TestEventStream_FollowerServesSameEvents holds that a follower streams
// the very events the leader does: both derive them from the raft log.
func TestEventStream_FollowerServesSameEvents(t *testing.T) {
	leader, follower := testServerPair(t)
	topics := map[nomadapi.Topic][]string{nomadapi.TopicJob: {"shared"}, nomadapi.TopicEvaluation: {"shared"}}
	fromLeader := eventStream(t, leader, topics, 0)
	fromFollower := eventStream(t, follower, topics, 0)
	registerJob(t, follower, batchJobJSON("shared"))
	_, _, err := officialClient(t, leader).Jobs().Deregister("shared", true, nil)
	must.NoError(t, err)

	done := hasEvent("Job JobDeregistered shared")
	l := collectEvents(t, fromLeader, done)
	f := collectEvents(t, fromFollower, done)
	must.Eq(t, eventLines(l), eventLines(f))
	for i := range l {
		must.Eq(t, l[i].Index, f[i].Index)
	}
	_, deleted, err := l[slices.IndexFunc(l, func(e nomadapi.Event) bool { return e.Type == "JobDeregistered" })].DeregisteredJob()
	must.NoError(t, err)
	must.True(t, deleted)
}

// TestEventStream_MaxRunDeadlineVisible runs a job whose budget runs out on
// a real client, and holds that its allocation's events tell the kill and
// then the timeout from the payload alone.
func TestEventStream_MaxRunDeadlineVisible(t *testing.T) {
	a := testClientAgent(t)
	ch := eventStream(t, a, map[nomadapi.Topic][]string{nomadapi.TopicAllocation: {"deadline"}}, 0)
	job := batchJobJSON("deadline")
	job["TaskGroups"].([]any)[0].(map[string]any)["MaxRunDuration"] = int64(2 * time.Second)
	registerJob(t, a, job)

	events := collectEvents(t, ch, func(events []nomadapi.Event) bool {
		return slices.ContainsFunc(events, func(e nomadapi.Event) bool {
			alloc, err := e.Allocation()
			return err == nil && alloc.ClientStatus == "complete"
		})
	})
	killing, terminal := -1, -1
	for i, e := range events {
		alloc, err := e.Allocation()
		must.NoError(t, err)
		if ts := alloc.TaskStates["maxrun"]; killing < 0 && ts != nil && slices.ContainsFunc(ts.Events, func(ev *nomadapi.TaskEvent) bool {
			return ev.Type == "Killing" && ev.DisplayMessage == structs.AllocTimeoutReasonMaxRunDuration
		}) {
			killing = i
		}
		if alloc.ClientStatus == "complete" {
			terminal = i
			must.Eq(t, structs.AllocTimeoutReasonMaxRunDuration, alloc.ClientDescription)
			must.Eq[any](t, true, e.Payload["Allocation"].(map[string]any)["MaxRunExceeded"])
		}
	}
	must.NonNegative(t, killing, must.Sprintf("a Killing event for the deadline in %s", eventLines(events)))
	must.LessEq(t, terminal, killing)
	must.Eq(t, "AllocationUpdated", events[terminal].Type)
}

func TestEventStream_BadRequests(t *testing.T) {
	a := testAgent(t)
	cases := []struct {
		query string
		code  int
		want  string
	}{
		{"?topic=Bogus", http.StatusBadRequest, `unknown topic "Bogus"`},
		{"?topic=Job:", http.StatusBadRequest, "missing key of topic Job"},
		{"?topic=Evaluation:::*", http.StatusBadRequest, `Invalid key value pair for topic "Evaluation:::*"`},
		{"?index=-1", http.StatusBadRequest, "invalid index"},
		{"?topic=Job&region=mars", http.StatusBadRequest, `unknown region "mars"`},
		{"?" + strings.Repeat("topic=Job&", maxEventTopics+1), http.StatusBadRequest, "too many topic filters"},
	}
	for _, tc := range cases {
		resp := do(t, a, http.MethodGet, "/v1/event/stream"+tc.query, nil)
		must.Eq(t, tc.code, resp.code, must.Sprint(tc.query))
		must.StrContains(t, resp.String(), tc.want)
	}

	off := testAgent(t, func(c *config.Config) { c.Server.EnableEventBroker = false })
	resp := do(t, off, http.MethodGet, "/v1/event/stream", nil)
	must.Eq(t, http.StatusNotImplemented, resp.code)
	must.StrContains(t, resp.String(), "enable_event_broker = false")
	must.True(t, off.Server().Config().DisableEvents)
	must.Eq(t, nomad.DefaultEventBufferSize, a.Server().Config().EventBufferSize)
}

// TestEventStream_HeartbeatWhenIdle holds that an idle stream sends {}
// every eventHeartbeatEvery, and frames as events come.
func TestEventStream_HeartbeatWhenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		broker := stream.NewBroker(10, 0)
		sub, err := broker.Subscribe(stream.SubscribeRequest{})
		must.NoError(t, err)
		s := &HTTPServer{logger: hclog.NewNullLogger()}
		ctx, cancel := context.WithCancel(context.Background())
		w := &syncRecorder{header: http.Header{}}
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.streamEvents(w, httptest.NewRequest(http.MethodGet, "/v1/event/stream", nil).WithContext(ctx), sub)
		}()

		time.Sleep(eventHeartbeatEvery - time.Millisecond)
		synctest.Wait()
		must.Eq(t, "", w.body())
		time.Sleep(time.Millisecond)
		synctest.Wait()
		must.Eq(t, "{}\n", w.body())
		must.Eq(t, "application/json", w.header.Get("Content-Type"))

		// An event within eventWriteGap of the last write waits for the
		// gap's end; every batch that came meanwhile goes out in the same
		// write.
		job := func(id string) []*stream.Event {
			return []*stream.Event{{Topic: stream.TopicJob, Type: stream.TypeJobRegistered, Key: id, Namespace: "default", Payload: &structs.Job{ID: id}}}
		}
		broker.Publish(7, job("a"))
		broker.Publish(8, job("b"))
		synctest.Wait()
		must.Eq(t, "{}\n", w.body())
		time.Sleep(eventWriteGap)
		synctest.Wait()
		lines := strings.Split(strings.TrimSpace(w.body()), "\n")
		must.Len(t, 3, lines)
		must.Eq(t, 3, w.flushCount(), must.Sprint("the headers, the heartbeat, then both frames at once"))
		must.Eq(t, 2, w.writeCount(), must.Sprint("the heartbeat, then both frames in one write"))
		var frame nomadapi.Events
		must.NoError(t, json.Unmarshal([]byte(lines[1]), &frame))
		must.Eq(t, 7, frame.Index)
		must.Eq(t, []string{"Job JobRegistered a"}, eventLines(frame.Events))
		must.NoError(t, json.Unmarshal([]byte(lines[2]), &frame))
		must.Eq(t, []string{"Job JobRegistered b"}, eventLines(frame.Events))

		// After a quiet spell an event goes out at once.
		time.Sleep(time.Second)
		broker.Publish(9, job("c"))
		synctest.Wait()
		must.StrContains(t, w.body(), `"Key":"c"`)

		cancel()
		<-done
	})
}

// TestEventStream_GapGrowsInABurst holds that while events keep coming a
// stream writes less and less often, down to once every
// maxEventWriteGap, sending every frame all the same, and that after a
// quiet spell the next event goes out at once again.
func TestEventStream_GapGrowsInABurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		broker := stream.NewBroker(10_000, 0)
		sub, err := broker.Subscribe(stream.SubscribeRequest{})
		must.NoError(t, err)
		s := &HTTPServer{logger: hclog.NewNullLogger()}
		ctx, cancel := context.WithCancel(context.Background())
		w := &syncRecorder{header: http.Header{}}
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.streamEvents(w, httptest.NewRequest(http.MethodGet, "/v1/event/stream", nil).WithContext(ctx), sub)
		}()
		job := func(id string) []*stream.Event {
			return []*stream.Event{{Topic: stream.TopicJob, Type: stream.TypeJobRegistered, Key: id, Namespace: "default", Payload: &structs.Job{ID: id}}}
		}

		// An event a millisecond for a second.
		const burst = 1000
		for i := range burst {
			broker.Publish(uint64(i+1), job(fmt.Sprint(i)))
			time.Sleep(time.Millisecond)
		}
		time.Sleep(maxEventWriteGap)
		synctest.Wait()
		must.Eq(t, burst, strings.Count(w.body(), "\n"), must.Sprint("every frame sent"))
		writes := w.writeCount()
		must.Less(t, 2*int(time.Second/maxEventWriteGap), writes,
			must.Sprintf("%d writes in a second: the gap did not grow past %s", writes, eventWriteGap))

		// After a quiet spell an event goes out at once.
		time.Sleep(time.Second)
		broker.Publish(burst+1, job("after"))
		synctest.Wait()
		must.Eq(t, writes+1, w.writeCount())
		must.StrContains(t, w.body(), `"Key":"after"`)

		cancel()
		<-done
	})
}

// TestEventStream_FullWritesDoNotWaitForTheGap holds that what piled up
// beyond one write's bound goes out in further writes at once: the gap
// bounds how often a stream wakes, not how much it sends.
func TestEventStream_FullWritesDoNotWaitForTheGap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		broker := stream.NewBroker(10_000, 0)
		sub, err := broker.Subscribe(stream.SubscribeRequest{})
		must.NoError(t, err)
		big := strings.Repeat("x", 16<<10)
		const jobs = 40 // ten times maxEventWrite
		for i := range jobs {
			job := &structs.Job{ID: fmt.Sprint(i), Meta: map[string]string{"blob": big}}
			broker.Publish(uint64(i+1), []*stream.Event{{Topic: stream.TopicJob, Type: stream.TypeJobRegistered, Key: job.ID, Namespace: "default", Payload: job}})
		}
		s := &HTTPServer{logger: hclog.NewNullLogger()}
		ctx, cancel := context.WithCancel(context.Background())
		w := &syncRecorder{header: http.Header{}}
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.streamEvents(w, httptest.NewRequest(http.MethodGet, "/v1/event/stream", nil).WithContext(ctx), sub)
		}()
		synctest.Wait() // no time passes
		must.Eq(t, jobs, strings.Count(w.body(), "\n"), must.Sprint("every frame sent without a pause"))
		must.Greater(t, 1, w.writeCount())

		cancel()
		<-done
	})
}

// syncRecorder is a ResponseWriter that a test may read while a handler
// writes to it.
type syncRecorder struct {
	mu      sync.Mutex
	header  http.Header
	buf     strings.Builder
	flushes int
	writes  int
}

func (r *syncRecorder) Header() http.Header { return r.header }
func (r *syncRecorder) WriteHeader(int)     {}
func (r *syncRecorder) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushes++
}

func (r *syncRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes++
	return r.buf.Write(p)
}

func (r *syncRecorder) writeCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writes
}

func (r *syncRecorder) flushCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flushes
}

func (r *syncRecorder) body() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.String()
}

// An error frame is one JSON line that names why the stream ended.
func TestEventStream_ErrorFrame(t *testing.T) {
	var frame map[string]string
	must.NoError(t, json.Unmarshal(errorFrame(fmt.Errorf("fell behind:\nbadly")), &frame))
	must.Eq(t, map[string]string{"Error": "fell behind:; badly"}, frame)
}

// TestEventStream_ACLObjects holds that ACL tokens, policies and namespaces
// have events, that only a management token receives them, and that a
// token's event never carries its secret.
func TestEventStream_ACLObjects(t *testing.T) {
	a, mgmt := aclAgent(t)
	client := officialClient(t, a)
	subscribe := func(secret string) <-chan *nomadapi.Events {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		topics := map[nomadapi.Topic][]string{"ACLToken": nil, "ACLPolicy": nil, "Namespace": nil}
		ch, err := client.EventStream().Stream(ctx, topics, 0, &nomadapi.QueryOptions{AuthToken: secret, Namespace: "*"})
		must.NoError(t, err)
		return ch
	}
	reader := tokenWith(t, a, mgmt, "ns-reader", `namespace "*" { policy = "read" }`)
	fromMgmt, fromReader := subscribe(mgmt), subscribe(reader.SecretID)

	resp := doAs(t, a, mgmt, http.MethodPut, "/v1/namespace/batch", api.Namespace{Name: "batch", Description: "batch work"})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	resp = doAs(t, a, mgmt, http.MethodDelete, "/v1/namespace/batch", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))

	got := collectEvents(t, fromMgmt, hasEvent("Namespace NamespaceDeleted batch"))
	inOrder(t, eventLines(got),
		"ACLPolicy ACLPolicyUpserted ns-reader",
		"ACLToken ACLTokenUpserted "+reader.AccessorID,
		"Namespace NamespaceUpserted batch",
		"Namespace NamespaceDeleted batch")
	for _, e := range got {
		if token, ok := e.Payload["ACLToken"].(map[string]any); ok {
			must.Eq[any](t, "", token["SecretID"], must.Sprint("a token event carries no secret"))
			must.Eq[any](t, e.Key, token["AccessorID"])
		}
	}
	select {
	case frame := <-fromReader:
		must.SliceEmpty(t, frame.Events, must.Sprint("a token that is not management saw ACL objects"))
	default:
	}
}

// TestEventStream_NotChunked holds that an HTTP/1.1 stream's body is the
// frames themselves, not chunks (each of which net/http writes as three
// system calls), and that the frames go on arriving on it.
func TestEventStream_NotChunked(t *testing.T) {
	a := testAgent(t, func(c *config.Config) { c.Server.NumSchedulers = new(0) })
	conn, err := net.Dial("tcp", a.HTTPAddr())
	must.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "GET /v1/event/stream?topic=Job:plain HTTP/1.1\r\nHost: %s\r\n\r\n", a.HTTPAddr())
	must.NoError(t, err)
	rd := bufio.NewReader(conn)
	resp, err := http.ReadResponse(rd, nil)
	must.NoError(t, err)
	// The body is not closed, which would read it to its end: closing
	// the connection ends it.
	must.Eq(t, http.StatusOK, resp.StatusCode)
	must.SliceEmpty(t, resp.TransferEncoding, must.Sprint("the stream is not chunked"))
	must.True(t, resp.Close, must.Sprint("the stream ends with its connection"))

	registerJob(t, a, batchJobJSON("plain"))
	// Raw bytes straight off the connection: a chunk's size line would
	// come before the frame.
	must.NoError(t, conn.SetReadDeadline(time.Now().Add(streamTimeout)))
	line, err := rd.ReadString('\n')
	must.NoError(t, err)
	must.StrHasPrefix(t, `{"Index":`, line)
	must.StrContains(t, line, `"Type":"JobRegistered"`)
}
