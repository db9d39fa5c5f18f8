package command

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/drover-io/drover/api"
)

// Lock defaults, as Nomad's client has them.
const (
	defaultLockTTL   = 15 * time.Second
	defaultLockDelay = 15 * time.Second
	// lockRetryPause is the pause between two attempts to take a lock
	// another holds.
	lockRetryPause = time.Second
)

// VarLockCommand runs a command while holding a lock on a variable.
type VarLockCommand struct{ Meta }

func (c *VarLockCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover var lock [options] <path> <command> [<args>...]

  Takes the lock of the variable at path (creating the variable if there
  is none), runs the command while renewing the lock, and releases it once
  the command exits; the exit code is the command's. While the lock is held
  no one else can take it or change the variable. If the lock is lost (it
  could not be renewed) the command is stopped and the exit code is 1. It
  needs variables write on the path.
` + clientOptionsHelp + `
Lock Options:

  -ttl <duration>
    How long the lock is held between two renewals, 10s to 24h. Default 15s.

  -delay <duration>
    How long the variable stays locked after a lock was lost, 10s to 24h.
    Default 15s.

  -max-retry <n>
    How many more times to try, a second apart, while another holds the
    lock. Default 5.

  -verbose
    Say when the lock is taken and released.
`)
}

func (c *VarLockCommand) Synopsis() string { return "Run a command while holding a variable's lock" }

func (c *VarLockCommand) Run(args []string) int {
	var ttl, delay time.Duration
	var maxRetry int
	var verbose bool
	fs := c.ClientFlagSet("var lock")
	fs.DurationVar(&ttl, "ttl", defaultLockTTL, "")
	fs.DurationVar(&delay, "delay", defaultLockDelay, "")
	fs.IntVar(&maxRetry, "max-retry", 5, "")
	fs.BoolVar(&verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() < 2 {
		return usageError(c.Ui, "var lock", "This command takes a path and the command to run")
	}
	if maxRetry < 0 {
		return usageError(c.Ui, "var lock", "-max-retry must not be negative")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	lock := &varLock{vars: client.Variables(), path: strings.Trim(fs.Arg(0), "/"), ttl: ttl, delay: delay}
	if err := lock.acquire(ctx, maxRetry); err != nil {
		c.Ui.Error(apiErrorLine(client, "acquiring lock", err))
		return exitError
	}
	if verbose {
		c.Ui.Output(fmt.Sprintf("Acquired the lock of %q (ID %s)", lock.path, lock.id))
	}
	code := c.runHolding(ctx, lock, fs.Args()[1:])
	if err := lock.release(); err != nil {
		c.Ui.Error(apiErrorLine(client, "releasing lock", err))
		return exitError
	}
	if verbose {
		c.Ui.Output(fmt.Sprintf("Released the lock of %q", lock.path))
	}
	return code
}

// runHolding runs argv while renewing lock, and returns its exit code; 1
// when the lock was lost, and the command then stopped.
func (c *VarLockCommand) runHolding(ctx context.Context, lock *varLock, argv []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		c.Ui.Error(fmt.Sprintf("Error running %q: %v", argv[0], err))
		return exitError
	}
	holdCtx, cancel := context.WithCancel(ctx)
	lost := make(chan error, 1)
	go func() { lost <- holdLock(holdCtx, lock.renew, lock.ttl) }()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	var waitErr error
	select {
	case waitErr = <-exited:
		cancel()
		<-lost
	case err := <-lost:
		if err != nil {
			c.Ui.Error(fmt.Sprintf("Lost the lock of %q: %v; stopping the command", lock.path, err))
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-exited
		cancel()
		return exitError
	}
	var exitErr *exec.ExitError
	switch {
	case errors.As(waitErr, &exitErr):
		return exitErr.ExitCode()
	case waitErr != nil:
		c.Ui.Error(fmt.Sprintf("Error waiting for %q: %v", argv[0], waitErr))
		return exitError
	}
	return exitOK
}

// holdLock renews a lock half-way through each TTL until ctx ends (nil)
// or a renewal fails (its error).
func holdLock(ctx context.Context, renew func(context.Context) error, ttl time.Duration) error {
	t := time.NewTicker(ttl / 2)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			if err := renew(ctx); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return err
			}
		}
	}
}

// varLock is a lock held on a variable.
type varLock struct {
	vars  *api.Variables
	path  string
	ttl   time.Duration
	delay time.Duration
	id    string
}

// acquire takes the lock, trying again up to retries times while another
// holds it.
func (l *varLock) acquire(ctx context.Context, retries int) error {
	v := &api.Variable{Path: l.path, Lock: &api.VariableLock{TTL: l.ttl.String(), LockDelay: l.delay.String()}}
	for attempt := 0; ; attempt++ {
		got, _, err := l.vars.Lock("lock-acquire", v, (&api.WriteOptions{}).WithContext(ctx))
		var conflict api.ErrCASConflict
		if errors.As(err, &conflict) && attempt < retries {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(lockRetryPause):
			}
			continue
		}
		if errors.As(err, &conflict) {
			return fmt.Errorf("the lock of %q is held by another, %d attempts later", l.path, attempt+1)
		}
		if err != nil {
			return err
		}
		if got.Lock == nil {
			return fmt.Errorf("the agent answered the lock of %q without a lock ID", l.path)
		}
		l.id = got.Lock.ID
		return nil
	}
}

func (l *varLock) renew(ctx context.Context) error {
	_, _, err := l.vars.Lock("lock-renew", l.held(), (&api.WriteOptions{}).WithContext(ctx))
	return err
}

// release gives the lock up, whatever the command's context: a command
// interrupted still releases what it holds.
func (l *varLock) release() error {
	ctx, cancel := context.WithTimeout(context.Background(), l.ttl)
	defer cancel()
	_, _, err := l.vars.Lock("lock-release", l.held(), (&api.WriteOptions{}).WithContext(ctx))
	return err
}

func (l *varLock) held() *api.Variable {
	return &api.Variable{Path: l.path, Lock: &api.VariableLock{ID: l.id}}
}
