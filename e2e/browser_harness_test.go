package e2e

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/internal/waitfor"
)

// screenshotDirEnv names a directory where the browser tests save their
// screenshots, such as the docs' image folder when they are renewed; the
// test's own temporary directory otherwise.
const screenshotDirEnv = "DROVER_SCREENSHOT_DIR"

// networkChanged is the error of a load or request that Chromium abandoned
// because the machine's network interfaces changed (other tests create
// and remove Docker networks): the machine's doing, not the page's.
const networkChanged = "ERR_NETWORK_CHANGED"

// browser is headless Chromium (Debian's chromium, which
// scripts/install-deps.sh installs) driving pages of one agent, with what
// the pages did wrong: console errors, uncaught exceptions and requests to
// anywhere but the agent.
type browser struct {
	t      *testing.T
	ctx    context.Context
	origin string // the agent's scheme://host:port
	shots  string

	mu       sync.Mutex
	problems []string
	// refusals are the HTTP statuses a test expects the agent to answer
	// some of the page's requests with (403 to a page without a token);
	// the browser logs each as an error, which is then no problem.
	refusals map[int]bool
}

// startBrowser starts Chromium for the agent at origin, stopped when the
// test ends, in a network namespace of its own where it can be (see
// isolateBrowser): the pages' origin is then a port there that forwards to
// the agent. A machine without Chromium fails the test: the set-up script
// installs it.
func startBrowser(t *testing.T, origin string) *browser {
	t.Helper()
	path, err := exec.LookPath("chromium")
	must.NoError(t, err, must.Sprint("Chromium is required: run scripts/install-deps.sh (as root, it installs Debian's chromium)"))
	launch := path
	if n, err := isolateBrowser(t, strings.TrimPrefix(origin, "http://")); err == nil {
		launch, origin = n.browserLauncher(t, path), n.origin
	} else {
		t.Logf("the browser shares the machine's network: %v", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(launch),
		chromedp.NoSandbox, // root, in CI
		chromedp.WindowSize(1100, 760),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	b := &browser{t: t, ctx: ctx, origin: origin, shots: os.Getenv(screenshotDirEnv)}
	if b.shots == "" {
		b.shots = t.TempDir()
	}
	// Subscribe before the first page: the iterators see everything
	// from then on, and end with the browser.
	console := chromedp.Console(ctx)
	requests := chromedp.Events(ctx, network.RequestWillBeSent)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if strings.Contains(m.Text, networkChanged) || b.expectedRefusal(m) {
				t.Logf("ignored: %s", m.Text)
				continue
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.problem(fmt.Sprintf("console %s at %s:%d: %s", m.Type, m.URL, m.Line+1, m.Text))
			}
		}
	}()
	go func() {
		for ev, err := range requests {
			if err != nil {
				return
			}
			if ev.Request != nil && !b.sameOrigin(ev.Request.URL) {
				b.problem("request outside the agent's origin: " + ev.Request.URL)
			}
		}
	}()
	b.do("start the browser", chromedp.Navigate("about:blank"))
	return b
}

// expectRefusals says that the agent will refuse some requests with
// status, as the test means it to: the browser's log of each such
// response is not a problem. A script error still is.
func (b *browser) expectRefusals(status int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.refusals == nil {
		b.refusals = map[int]bool{}
	}
	b.refusals[status] = true
}

// expectedRefusal reports whether m is the browser's log of a response
// with a status the test expects (Chromium's words: "Failed to load
// resource: the server responded with a status of 403 (Forbidden)").
func (b *browser) expectedRefusal(m chromedp.ConsoleMessage) bool {
	if m.Source != "network" {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for status := range b.refusals {
		if strings.Contains(m.Text, fmt.Sprintf("the server responded with a status of %d ", status)) {
			return true
		}
	}
	return false
}

// problem records what a page must not do.
func (b *browser) problem(p string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, p)
}

// sameOrigin reports whether a request goes to the agent, or nowhere.
func (b *browser) sameOrigin(raw string) bool {
	// about: and data: URLs go nowhere: Chromium's own error page (shown
	// when a load is abandoned) uses them; the UI does not.
	if strings.HasPrefix(raw, "about:") || strings.HasPrefix(raw, "data:") {
		return true
	}
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	return u.Scheme+"://"+u.Host == b.origin
}

// noProblems fails the test if any page logged an error, threw, or sent a
// request anywhere but the agent.
func (b *browser) noProblems() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	must.SliceEmpty(b.t, b.problems, must.Sprintf("the pages must run clean and stay on the agent's origin:\n%s", strings.Join(b.problems, "\n")))
}

// do runs browser actions, failing the test on error.
func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	must.NoError(b.t, chromedp.Do(ctx, actions...), must.Sprint(what))
}

// run runs one browser action and returns its value.
func run[T any](b *browser, what string, action chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	out, err := chromedp.Run(ctx, action)
	must.NoError(b.t, err, must.Sprint(what))
	return out
}

// open loads a page of the agent and waits until the script has filled in
// sel (its text no longer the template's placeholder).
func (b *browser) open(path, sel string) {
	b.t.Helper()
	defer func(start time.Time) { b.t.Logf("opened %s in %s", path, time.Since(start).Round(time.Millisecond)) }(time.Now())
	// Chromium abandons a load when the machine's interfaces change, as
	// they do when other tests create Docker networks: load again.
	// Chromium shows its own error page then, so any failed load is
	// tried again, within the minute.
	waitfor.NoError(b.t, "load "+path, func() error {
		ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
		defer cancel()
		err := chromedp.Do(ctx, chromedp.Navigate(b.origin+path), chromedp.WaitVisible(chromedp.CSS(sel)))
		if err != nil {
			b.t.Logf("load %s: %v; trying again", path, err)
		}
		return err
	}, wait.Timeout(time.Minute), wait.Gap(pollGap))
	b.waitText("the page filled in ("+path+")", sel, func(s string) bool {
		return s != "" && !strings.Contains(s, "Loading…") && s != "…"
	})
}

// text reads the text of the first element sel selects.
func (b *browser) text(sel string) string {
	b.t.Helper()
	return strings.TrimSpace(run(b, "read "+sel, chromedp.Text(chromedp.CSS(sel))))
}

// waitText waits until the text of sel satisfies ok, returning it.
func (b *browser) waitText(what, sel string, ok func(string) bool) string {
	b.t.Helper()
	var last string
	waitfor.NoError(b.t, what, func() error {
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		defer cancel()
		out, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			return err
		}
		last = strings.TrimSpace(out)
		if !ok(last) {
			return fmt.Errorf("%s reads %q", sel, last)
		}
		return nil
	}, wait.Timeout(time.Minute), wait.Gap(pollGap))
	return last
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	return run(b, "evaluate "+expr, chromedp.Evaluate[T](expr))
}

// screenshot saves the viewport as <name>.png in the screenshot
// directory and returns its path.
func (b *browser) screenshot(name string) string {
	b.t.Helper()
	png := run(b, "screenshot "+name, chromedp.CaptureScreenshot())
	path := filepath.Join(b.shots, name+".png")
	must.NoError(b.t, os.WriteFile(path, png, 0o644))
	b.t.Logf("screenshot %s (%d bytes)", path, len(png))
	return path
}

// viewport sets the window's size, to try a page on a narrow screen.
func (b *browser) viewport(width, height int64) {
	b.t.Helper()
	b.do("resize", chromedp.EmulateViewport(width, height))
}
