package docker

import (
	"context"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/hashicorp/go-hclog"
	"github.com/moby/moby/client"
)

// imageRemoveTimeout bounds one image removal.
const imageRemoveTimeout = time.Minute

// imageGC removes an image once no task of this driver has used it for
// the delay: a task using it again meanwhile keeps it. Removal is not
// forced, so an image that containers outside the driver use stays.
type imageGC struct {
	client  *client.Client
	logger  hclog.Logger
	enabled bool
	delay   time.Duration

	mu      sync.Mutex
	users   map[string]int // image ID -> tasks using it
	pending map[string]*time.Timer
	stopped bool
}

func newImageGC(c *client.Client, logger hclog.Logger, cfg GCConfig) *imageGC {
	return &imageGC{
		client: c, logger: logger, enabled: cfg.Image, delay: cfg.ImageDelay,
		users: map[string]int{}, pending: map[string]*time.Timer{},
	}
}

// acquire records a task using the image, and calls off its removal.
func (g *imageGC) acquire(imageID string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.users[imageID]++
	if t, ok := g.pending[imageID]; ok {
		t.Stop()
		delete(g.pending, imageID)
	}
}

// release records a task done with the image; after the last one the
// image is removed once the delay has passed.
func (g *imageGC) release(imageID string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.users[imageID] <= 0 {
		return
	}
	g.users[imageID]--
	if g.users[imageID] > 0 {
		return
	}
	delete(g.users, imageID)
	if !g.enabled || g.stopped {
		return
	}
	var timer *time.Timer
	timer = time.AfterFunc(g.delay, func() { g.remove(imageID, timer) })
	g.pending[imageID] = timer
}

func (g *imageGC) remove(imageID string, timer *time.Timer) {
	g.mu.Lock()
	if g.pending[imageID] != timer || g.users[imageID] > 0 || g.stopped {
		g.mu.Unlock()
		return
	}
	delete(g.pending, imageID)
	g.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), imageRemoveTimeout)
	defer cancel()
	_, err := g.client.ImageRemove(ctx, imageID, client.ImageRemoveOptions{PruneChildren: true})
	switch {
	case err == nil:
		g.logger.Debug("removed image", "image_id", imageID)
	case cerrdefs.IsNotFound(err):
	case cerrdefs.IsConflict(err):
		g.logger.Debug("image still in use, kept", "image_id", imageID, "error", err)
	default:
		g.logger.Warn("failed to remove image", "image_id", imageID, "error", err)
	}
}

// stop calls off every pending removal: the agent is stopping.
func (g *imageGC) stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopped = true
	for id, t := range g.pending {
		t.Stop()
		delete(g.pending, id)
	}
}
