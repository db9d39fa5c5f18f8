package agent

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/drover-io/drover/client/allocrunner"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/structs"
)

// Origins of a log offset.
const (
	originStart = "start"
	originEnd   = "end"
)

// logFrame is one frame of a framed log stream, Nomad's StreamFrame: Data
// is base64 in JSON, Offset is where in File the data ends. A frame with
// nothing set is a heartbeat.
type logFrame struct {
	Offset    int64  `json:",omitempty"`
	Data      []byte `json:",omitempty"`
	File      string `json:",omitempty"`
	FileEvent string `json:",omitempty"`
}

// logsRequest is a parsed /v1/client/fs/logs request.
type logsRequest struct {
	task   string
	typ    string
	follow bool
	plain  bool
	origin string
	offset int64
}

func parseLogsRequest(r *http.Request) (*logsRequest, error) {
	q := r.URL.Query()
	req := &logsRequest{task: q.Get("task"), typ: q.Get("type"), origin: q.Get("origin")}
	if req.task == "" {
		return nil, httpserver.BadRequest("missing task name: set ?task=")
	}
	if req.typ != "stdout" && req.typ != "stderr" {
		return nil, httpserver.BadRequest("invalid log type %q: must be stdout or stderr", req.typ)
	}
	switch req.origin {
	case "":
		req.origin = originStart
	case originStart, originEnd:
	default:
		return nil, httpserver.BadRequest("invalid origin %q: must be start or end", req.origin)
	}
	if s := q.Get("offset"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return nil, httpserver.BadRequest("invalid offset %q: must be a non-negative integer", s)
		}
		req.offset = n
	}
	var err error
	if req.follow, err = httpserver.ParseBoolParam(r, "follow"); err != nil {
		return nil, err
	}
	if req.plain, err = httpserver.ParseBoolParam(r, "plain"); err != nil {
		return nil, err
	}
	return req, nil
}

// fsLogs serves GET /v1/client/fs/logs/:alloc: a task's stdout or stderr,
// across the driver's rotated files, raw (?plain=true) or as JSON frames;
// ?follow=true keeps streaming new output until the task is dead.
func (s *HTTPServer) fsLogs(w http.ResponseWriter, r *http.Request) (any, error) {
	ar, err := s.clientAlloc(w, r)
	if ar == nil {
		return nil, err
	}
	req, err := parseLogsRequest(r)
	if err != nil {
		return nil, err
	}
	if err := checkTask(ar, req.task); err != nil {
		return nil, err
	}
	reader, err := allocReader(ar)
	if err != nil {
		return nil, err
	}
	defer reader.Close()
	files := logFiles{dir: reader, base: req.task + "." + req.typ}
	index, pos, err := files.seek(req.origin, req.offset)
	if err != nil {
		return nil, err
	}
	stream := &logStream{
		files:    files,
		index:    index,
		pos:      pos,
		follow:   req.follow,
		taskDead: func() bool { return taskDead(ar, req.task) },
	}
	// The first file is opened before the answer starts, so that one the
	// task made unreadable is refused with its reason.
	if err := stream.open(); err != nil {
		return nil, fsPathError(files.name(index), err)
	}

	out := &deadlineWriter{w: w, rc: http.NewResponseController(w), timeout: fsIOTimeout}
	var sink logSink
	if req.plain {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		sink = &plainSink{w: out}
	} else {
		w.Header().Set("Content-Type", "application/json")
		sink = &frameSink{enc: json.NewEncoder(out), lastSent: time.Now()}
	}
	w.WriteHeader(http.StatusOK)
	if err := stream.run(r.Context(), sink); err != nil && r.Context().Err() == nil {
		s.logger.Warn("log stream ended early", "alloc_id", ar.ID(), "task", req.task, "error", err)
	}
	return nil, nil
}

// taskDead reports whether a task has stopped for good.
func taskDead(ar *allocrunner.AllocRunner, task string) bool {
	ts := ar.Alloc().TaskStates[task]
	return ts == nil || ts.State == structs.TaskStateDead
}

// plainSink writes the log's bytes as they are.
type plainSink struct {
	w io.Writer // flushes each write
}

func (p *plainSink) data(_ string, b []byte, _ int64) error {
	_, err := p.w.Write(b)
	return err
}

func (p *plainSink) event(string, string) error { return nil }

func (p *plainSink) idle() error { return nil }

// frameSink writes the log as JSON frames.
type frameSink struct {
	enc      *json.Encoder // on a writer that flushes each write
	lastSent time.Time
}

func (f *frameSink) send(frame *logFrame) error {
	if err := f.enc.Encode(frame); err != nil {
		return err
	}
	f.lastSent = time.Now()
	return nil
}

func (f *frameSink) data(file string, b []byte, end int64) error {
	return f.send(&logFrame{File: file, Data: b, Offset: end})
}

func (f *frameSink) event(file, ev string) error {
	return f.send(&logFrame{File: file, FileEvent: ev})
}

func (f *frameSink) idle() error {
	if time.Since(f.lastSent) < logHeartbeatEvery {
		return nil
	}
	return f.send(&logFrame{})
}
