package docker

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/docker/go-units"
	"github.com/moby/moby/api/types/jsonstream"

	"github.com/drover-io/drover/drivers"
)

// defaultProgressInterval is how often a pull's progress becomes a task
// event: often enough to see a pull move, rarely enough not to crowd out
// the task's other events (a task keeps its last ten).
const defaultProgressInterval = 10 * time.Second

// pullProgress adds up the engine's per-layer progress messages of one
// pull.
type pullProgress struct {
	mu     sync.Mutex
	layers map[string]*layerProgress
	order  []string
}

type layerProgress struct {
	current, total int64
	done           bool
}

// progressSnapshot is a pull's progress at one moment. A layer's size
// is known once its download has begun.
type progressSnapshot struct {
	BytesDone, BytesTotal   int64
	LayersDone, LayersTotal int
}

func (p *pullProgress) update(msg jsonstream.Message) {
	if msg.ID == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.layers[msg.ID]
	switch msg.Status {
	case "Pulling fs layer", "Waiting", "Downloading", "Verifying Checksum", "Download complete", "Extracting", "Pull complete", "Already exists":
	default:
		// The image's own lines ("Pulling from ...", "Digest: ...").
		return
	}
	if l == nil {
		if p.layers == nil {
			p.layers = map[string]*layerProgress{}
		}
		l = &layerProgress{}
		p.layers[msg.ID] = l
		p.order = append(p.order, msg.ID)
	}
	switch msg.Status {
	case "Downloading":
		if msg.Progress != nil {
			l.current, l.total = msg.Progress.Current, max(msg.Progress.Total, l.total)
		}
	case "Verifying Checksum", "Download complete", "Extracting":
		l.current = l.total
	case "Pull complete", "Already exists":
		l.current, l.done = l.total, true
	}
}

func (p *pullProgress) snapshot() progressSnapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	var s progressSnapshot
	for _, id := range p.order {
		l := p.layers[id]
		s.LayersTotal++
		s.BytesDone += l.current
		s.BytesTotal += l.total
		if l.done {
			s.LayersDone++
		}
	}
	return s
}

// downloadingEvent is the task event of a pull: it names the image and,
// once the engine reported some, the bytes and layers pulled so far.
func downloadingEvent(image string, s *progressSnapshot) *drivers.TaskEvent {
	ev := &drivers.TaskEvent{Message: "Downloading image " + image, Details: map[string]string{"image": image}}
	if s == nil || s.LayersTotal == 0 {
		return ev
	}
	ev.Message += fmt.Sprintf(": %s of %s, %d of %d layers done",
		units.BytesSize(float64(s.BytesDone)), units.BytesSize(float64(s.BytesTotal)), s.LayersDone, s.LayersTotal)
	ev.Details["bytes_done"] = strconv.FormatInt(s.BytesDone, 10)
	ev.Details["bytes_total"] = strconv.FormatInt(s.BytesTotal, 10)
	ev.Details["layers_done"] = strconv.Itoa(s.LayersDone)
	ev.Details["layers_total"] = strconv.Itoa(s.LayersTotal)
	return ev
}
