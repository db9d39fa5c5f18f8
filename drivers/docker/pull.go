package docker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/hashicorp/go-hclog"
	"github.com/moby/moby/api/types/jsonstream"
	"github.com/moby/moby/client"

	"github.com/drover-io/drover/drivers"
)

// errPullInactive is the cause of a pull abandoned for making no
// progress within the pull activity timeout.
var errPullInactive = errors.New("no progress")

// puller runs image pulls on the engine, one per image and credentials:
// tasks that need an image being pulled wait for that pull instead of
// starting another. A pull lasts while someone waits for it; when the
// last waiter goes (its task stopped, its deadline passed) the pull is
// cancelled, which closes its connection to the engine, and the engine
// abandons it.
type puller struct {
	client          *client.Client
	logger          hclog.Logger
	activityTimeout time.Duration

	mu    sync.Mutex
	pulls map[string]*pull
}

func newPuller(c *client.Client, logger hclog.Logger, activityTimeout time.Duration) *puller {
	return &puller{client: c, logger: logger, activityTimeout: activityTimeout, pulls: map[string]*pull{}}
}

// pull is one pull on the engine and the tasks waiting for it.
type pull struct {
	ref    string
	cancel context.CancelCauseFunc
	done   chan struct{}
	err    error // set before done closes

	waiters  int // guarded by puller.mu
	progress pullProgress
}

// Pull pulls ref, or joins the pull of ref under way, and returns once
// it is complete, or when ctx ends (the pull then goes on only for its
// other waiters). every is called with the pull's progress every
// interval while it waits.
func (p *puller) Pull(ctx context.Context, ref, auth string, interval time.Duration, every func(progressSnapshot)) error {
	pl := p.join(ref, auth)
	defer p.leave(ref, auth, pl)

	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-pl.done:
			return pl.err
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-ticker.C:
			every(pl.progress.snapshot())
		}
	}
}

func (p *puller) join(ref, auth string) *pull {
	key := ref + "\x00" + auth
	p.mu.Lock()
	defer p.mu.Unlock()
	if pl, ok := p.pulls[key]; ok {
		pl.waiters++
		return pl
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	pl := &pull{ref: ref, cancel: cancel, done: make(chan struct{}), waiters: 1}
	p.pulls[key] = pl
	go p.run(ctx, pl, auth)
	return pl
}

// leave stops waiting for pl; the last waiter cancels a pull still under
// way. A pull that ended is forgotten, so that the next task needing the
// image looks again whether it is present.
func (p *puller) leave(ref, auth string, pl *pull) {
	key := ref + "\x00" + auth
	p.mu.Lock()
	defer p.mu.Unlock()
	pl.waiters--
	ended := false
	select {
	case <-pl.done:
		ended = true
	default:
	}
	if pl.waiters > 0 && !ended {
		return
	}
	if p.pulls[key] == pl {
		delete(p.pulls, key)
	}
	if pl.waiters == 0 {
		pl.cancel(context.Canceled)
	}
}

// run pulls the image and records how the pull ended.
func (p *puller) run(ctx context.Context, pl *pull, auth string) {
	defer close(pl.done)
	start := time.Now()
	pl.err = p.pullImage(ctx, pl, auth)
	if pl.err != nil {
		p.logger.Debug("image pull ended", "image", pl.ref, "error", pl.err, "duration", time.Since(start))
		return
	}
	p.logger.Debug("pulled image", "image", pl.ref, "duration", time.Since(start))
}

func (p *puller) pullImage(ctx context.Context, pl *pull, auth string) error {
	// A pull that goes quiet for the activity timeout is abandoned.
	inactive := time.AfterFunc(p.activityTimeout, func() { pl.cancel(errPullInactive) })
	defer inactive.Stop()

	resp, err := p.client.ImagePull(ctx, pl.ref, client.ImagePullOptions{RegistryAuth: auth})
	if err != nil {
		return pullError(ctx, pl.ref, err, p.activityTimeout)
	}
	defer resp.Close()
	for msg, err := range resp.JSONMessages(ctx) {
		if err != nil {
			return pullError(ctx, pl.ref, err, p.activityTimeout)
		}
		if msg.Error != nil {
			return drivers.NewRecoverableError(fmt.Errorf("pull image %s: %s", pl.ref, msg.Error.Message), !isPermanentPullError(msg.Error))
		}
		inactive.Reset(p.activityTimeout)
		pl.progress.update(msg)
	}
	if err := ctx.Err(); err != nil {
		return pullError(ctx, pl.ref, err, p.activityTimeout)
	}
	return nil
}

// pullError says why a pull failed: the engine's reason, or the pull's
// own cancellation. A missing image or refused credentials will not get
// better by retrying; anything else may.
func pullError(ctx context.Context, ref string, err error, activityTimeout time.Duration) error {
	if cause := context.Cause(ctx); cause != nil {
		if errors.Is(cause, errPullInactive) {
			return drivers.NewRecoverableError(fmt.Errorf("pull image %s: no progress for %s (plugin \"docker\" config pull_activity_timeout)", ref, activityTimeout), true)
		}
		return fmt.Errorf("pull image %s: %w", ref, cause)
	}
	permanent := cerrdefs.IsNotFound(err) || cerrdefs.IsUnauthorized(err) || cerrdefs.IsPermissionDenied(err) || cerrdefs.IsInvalidArgument(err)
	return drivers.NewRecoverableError(fmt.Errorf("pull image %s: %w", ref, err), !permanent)
}

// isPermanentPullError tells, from an error the engine reported in the
// middle of a pull, whether retrying is pointless.
func isPermanentPullError(e *jsonstream.Error) bool {
	return e.Code == 401 || e.Code == 403 || e.Code == 404
}
