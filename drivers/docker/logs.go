package docker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/moby/moby/client"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/shared/logrotate"
	"github.com/drover-io/drover/internal/beneath"
)

const (
	// maxFrame bounds the part of one log frame held in memory; the
	// engine splits lines at 16 KiB, so longer frames do not occur.
	maxFrame = 64 << 10
	// logRetry is the pause before the stream is opened again after the
	// engine dropped it while the container runs.
	logRetry = 500 * time.Millisecond
	// posSuffix names the file, in the task's state directory, holding
	// the time of the last log message written, for an agent that
	// re-attaches.
	posSuffix = ".logpos"
)

// logStream copies a container's output from the engine into the
// allocation's rotated log files, as raw_exec's supervisor does for a
// process, so that `alloc logs` reads both alike. It runs in the agent:
// the engine keeps the output while the agent is down, and a new stream
// takes up from the last message written, whose time it keeps in a small
// position file.
type logStream struct {
	client      *client.Client
	logger      hclog.Logger
	containerID string
	exited      <-chan struct{}

	stdout, stderr *logrotate.Rotator
	// dirs are the log directories the rotators write in.
	dirs []*beneath.Dir
	pos  *os.File
	last time.Time

	cancel context.CancelFunc
	done   chan struct{}
}

// startLogs opens the task's log files and streams the container's
// output into them from after the last message an earlier stream wrote.
// exited is closed once the container is known to have stopped; until
// then a dropped stream is opened again.
func startLogs(c *client.Client, logger hclog.Logger, cfg *drivers.TaskConfig, stateDir, containerID string, exited <-chan struct{}) (*logStream, error) {
	ls := &logStream{client: c, logger: logger, containerID: containerID, exited: exited, done: make(chan struct{})}
	maxFiles, maxMB := cfg.LogMaxFiles, cfg.LogMaxFileSizeMB
	if maxFiles <= 0 {
		maxFiles = defaultLogMaxFiles
	}
	if maxMB <= 0 {
		maxMB = defaultLogMaxFileSizeMB
	}
	var err error
	if ls.stdout, err = ls.openLog(cfg, cfg.StdoutPath, maxFiles, int64(maxMB)<<20); err != nil {
		ls.closeFiles()
		return nil, err
	}
	if ls.stderr, err = ls.openLog(cfg, cfg.StderrPath, maxFiles, int64(maxMB)<<20); err != nil {
		ls.closeFiles()
		return nil, err
	}
	if stateDir != "" {
		if ls.pos, ls.last, err = openPosition(cfg, stateDir, containerID+posSuffix); err != nil {
			ls.closeFiles()
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	ls.cancel = cancel
	go ls.run(ctx)
	return ls, nil
}

// openLog opens a rotator of the log files base.N. The log directory is
// the allocation's alloc/logs, which its tasks write: it is opened
// beneath the allocation's directory, and the rotator writes nowhere
// else (see drivers.TaskConfig.MkdirInAlloc and package logrotate).
func (ls *logStream) openLog(cfg *drivers.TaskConfig, base string, maxFiles int, maxBytes int64) (*logrotate.Rotator, error) {
	if base == "" {
		return nil, nil
	}
	dir, err := cfg.MkdirInAlloc(filepath.Dir(base), 0o755)
	if err != nil {
		return nil, fmt.Errorf("open log directory: %w", err)
	}
	ls.dirs = append(ls.dirs, dir)
	return logrotate.New(dir, filepath.Base(base), maxFiles, maxBytes)
}

// openPosition opens the position file name in the driver's state
// directory, inside the task directory and so beneath the allocation's
// directory, and reads the time it holds.
func openPosition(cfg *drivers.TaskConfig, stateDir, name string) (*os.File, time.Time, error) {
	dir, err := cfg.MkdirInAlloc(stateDir, 0o700)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("create driver state directory: %w", err)
	}
	defer dir.Close()
	f, err := dir.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("open log position: %w", err)
	}
	var buf [8]byte
	var last time.Time
	if n, _ := f.ReadAt(buf[:], 0); n == len(buf) {
		if ns := int64(binary.LittleEndian.Uint64(buf[:])); ns > 0 {
			last = time.Unix(0, ns)
		}
	}
	return f, last, nil
}

// stop ends the stream now, leaving what the engine still holds for a
// later stream; wait ends it once it has drained, or after timeout.
func (ls *logStream) stop() {
	ls.cancel()
	<-ls.done
}

func (ls *logStream) wait(timeout time.Duration) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-ls.done:
	case <-timer.C:
		ls.logger.Warn("container output still streaming after its exit, cut off", "container_id", ls.containerID, "timeout", timeout)
		ls.stop()
	}
}

func (ls *logStream) run(ctx context.Context) {
	defer close(ls.done)
	defer ls.closeFiles()
	for {
		err := ls.copyOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			ls.logger.Debug("container output stream dropped", "container_id", ls.containerID, "error", err)
		}
		// The engine ends a stream when the container stops; one that
		// ends while it runs (the engine restarting) is opened again.
		retry := time.NewTimer(logRetry)
		select {
		case <-ctx.Done():
			retry.Stop()
			return
		case <-ls.exited:
			retry.Stop()
			// A stream the engine ends as the container stops can miss
			// the container's last output: one more pass, from the last
			// message written, collects it.
			_ = ls.copyOnce(ctx)
			return
		case <-retry.C:
		}
	}
}

// copyOnce streams the output since the last message written until the
// engine ends the stream (the container stopped) or it fails.
func (ls *logStream) copyOnce(ctx context.Context) error {
	opts := client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Follow: true, Timestamps: true}
	if !ls.last.IsZero() {
		opts.Since = ls.last.UTC().Format(time.RFC3339Nano)
	}
	rc, err := ls.client.ContainerLogs(ctx, ls.containerID, opts)
	if err != nil {
		return err
	}
	defer rc.Close()
	return ls.copyFrames(bufio.NewReaderSize(rc, 4<<10))
}

// copyFrames demultiplexes the engine's log stream: frames of an 8-byte
// header (stream, 3 zero bytes, big-endian length) and a payload that
// starts with the message's time. Messages up to the last one an earlier
// pass wrote are skipped: `since` includes it. Within a pass nothing is
// skipped: the engine stores stdout and stderr as two copiers deliver
// them, so a message can follow a later one of the other stream.
func (ls *logStream) copyFrames(r *bufio.Reader) error {
	written := ls.last
	var hdr [8]byte
	var buf []byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		size := int(binary.BigEndian.Uint32(hdr[4:]))
		n := min(size, maxFrame)
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		frame := buf[:n]
		if _, err := io.ReadFull(r, frame); err != nil {
			return err
		}
		at, msg := splitTimestamp(frame)
		skip := !at.IsZero() && !written.IsZero() && !at.After(written)
		dst := ls.stdout
		if hdr[0] == 2 {
			dst = ls.stderr
		}
		if !skip {
			ls.write(dst, msg)
		}
		if rest := int64(size - n); rest > 0 {
			// A frame longer than we hold: the rest goes straight through.
			var w io.Writer = io.Discard
			if !skip && dst != nil {
				w = dst
			}
			if _, err := io.CopyN(w, r, rest); err != nil {
				return err
			}
		}
		if !skip && at.After(ls.last) {
			ls.record(at)
		}
	}
}

// write writes a message to its log. A failed write (a full disk) loses
// that message, not the stream.
func (ls *logStream) write(dst *logrotate.Rotator, msg []byte) {
	if dst == nil {
		return
	}
	if _, err := dst.Write(msg); err != nil {
		ls.logger.Warn("failed to write task log", "container_id", ls.containerID, "error", err)
	}
}

// record keeps the time of the latest message written.
func (ls *logStream) record(at time.Time) {
	ls.last = at
	if ls.pos == nil {
		return
	}
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(at.UnixNano()))
	if _, err := ls.pos.WriteAt(buf[:], 0); err != nil {
		ls.logger.Warn("failed to record log position", "container_id", ls.containerID, "error", err)
	}
}

// splitTimestamp splits "2006-01-02T15:04:05.999999999Z message" into
// the time and the message; a payload without a time is all message.
func splitTimestamp(frame []byte) (time.Time, []byte) {
	i := bytes.IndexByte(frame, ' ')
	if i <= 0 {
		return time.Time{}, frame
	}
	at, err := time.Parse(time.RFC3339Nano, string(frame[:i]))
	if err != nil {
		return time.Time{}, frame
	}
	return at, frame[i+1:]
}

func (ls *logStream) closeFiles() {
	for _, r := range []*logrotate.Rotator{ls.stdout, ls.stderr} {
		if r != nil {
			r.Close()
		}
	}
	if ls.pos != nil {
		ls.pos.Close()
	}
	for _, d := range ls.dirs {
		d.Close()
	}
}

// removePosition deletes the position file of a container whose task is
// gone.
func removePosition(cfg *drivers.TaskConfig, stateDir, containerID string) {
	if stateDir == "" {
		return
	}
	dir, err := cfg.OpenInAlloc(stateDir)
	if err != nil {
		return
	}
	defer dir.Close()
	_ = dir.Remove(containerID + posSuffix)
}
