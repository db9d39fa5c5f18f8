package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
)

// AllocFS is the handle on the endpoints that read an allocation's
// directory and its tasks' logs.
type AllocFS struct {
	client *Client
}

// AllocFS returns the handle on the allocation file system endpoints.
func (c *Client) AllocFS() *AllocFS {
	return &AllocFS{client: c}
}

func fsPath(op, allocID string) string {
	return "/v1/client/fs/" + op + "/" + url.PathEscape(allocID)
}

// List lists the directory at path inside an allocation's directory.
func (a *AllocFS) List(alloc *Allocation, path string, q *QueryOptions) ([]*AllocFileInfo, *QueryMeta, error) {
	if alloc == nil {
		return nil, nil, errNilAlloc
	}
	var resp []*AllocFileInfo
	qm, err := a.client.query(fsPath("ls", alloc.ID), &resp, withParam(q, "path", path))
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// Cat returns the contents of the file at path inside an allocation's
// directory. The caller must close the reader.
func (a *AllocFS) Cat(alloc *Allocation, path string, q *QueryOptions) (io.ReadCloser, error) {
	if alloc == nil {
		return nil, errNilAlloc
	}
	return a.client.rawQuery(fsPath("cat", alloc.ID), withParam(q, "path", path))
}

// LogsPlain returns a task's stdout or stderr as raw bytes, starting offset
// bytes from origin ("start" or "end"; empty means "start"). With follow the
// stream stays open for new output until ctx is cancelled or the caller
// closes the reader.
func (a *AllocFS) LogsPlain(ctx context.Context, allocID, task, logType, origin string, offset int64, follow bool) (io.ReadCloser, error) {
	params, err := logParams(task, logType, origin, offset, follow)
	if err != nil {
		return nil, err
	}
	params["plain"] = "true"
	q := withParams(nil, params).WithContext(ctx)
	return a.client.rawQuery(fsPath("logs", allocID), q)
}

// Logs streams a task's stdout or stderr as frames, the agent's default
// encoding. Heartbeat frames are dropped. The frame channel is closed when
// the stream ends: at the end of the log unless follow is set, when cancel
// is closed, when q's context is done, or on a failure, which is sent on the
// error channel before the frame channel closes.
func (a *AllocFS) Logs(alloc *Allocation, follow bool, task, logType, origin string,
	offset int64, cancel <-chan struct{}, q *QueryOptions) (<-chan *StreamFrame, <-chan error) {

	errCh := make(chan error, 1)
	if alloc == nil {
		errCh <- errNilAlloc
		return nil, errCh
	}
	params, err := logParams(task, logType, origin, offset, follow)
	if err != nil {
		errCh <- err
		return nil, errCh
	}
	q = withParams(q, params)

	ctx, stop := context.WithCancel(q.Context())
	go func() {
		select {
		case <-cancel:
			stop()
		case <-ctx.Done():
		}
	}()

	body, err := a.client.rawQuery(fsPath("logs", alloc.ID), q.WithContext(ctx))
	if err != nil {
		stop()
		errCh <- err
		return nil, errCh
	}

	frames := make(chan *StreamFrame, 10)
	go func() {
		defer close(frames)
		defer stop()
		defer body.Close()
		if err := readFrames(ctx, body, frames); err != nil {
			errCh <- err
		}
	}()
	return frames, errCh
}

// readFrames decodes frames from body onto frames until the body ends or ctx
// is done; either is a clean end.
func readFrames(ctx context.Context, body io.Reader, frames chan<- *StreamFrame) error {
	dec := json.NewDecoder(body)
	for {
		var f StreamFrame
		if err := dec.Decode(&f); err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("decode log frame: %w", err)
		}
		if f.IsHeartbeat() {
			continue
		}
		select {
		case frames <- &f:
		case <-ctx.Done():
			return nil
		}
	}
}

// logParams checks the arguments of a log request and turns them into its
// query parameters.
func logParams(task, logType, origin string, offset int64, follow bool) (map[string]string, error) {
	if task == "" {
		return nil, errors.New("logs: a task name is required")
	}
	if logType != "stdout" && logType != "stderr" {
		return nil, fmt.Errorf("logs: log type %q is not stdout or stderr", logType)
	}
	if origin == "" {
		origin = OriginStart
	}
	if origin != OriginStart && origin != OriginEnd {
		return nil, fmt.Errorf("logs: origin %q is not %s or %s", origin, OriginStart, OriginEnd)
	}
	if offset < 0 {
		return nil, fmt.Errorf("logs: offset %d is negative", offset)
	}
	return map[string]string{
		"task":   task,
		"type":   logType,
		"origin": origin,
		"offset": strconv.FormatInt(offset, 10),
		"follow": strconv.FormatBool(follow),
	}, nil
}
