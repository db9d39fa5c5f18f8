package taskrunner

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/beneath"
	"github.com/drover-io/drover/internal/template"
	"github.com/drover-io/drover/structs"
)

// VariableSources gives each task the Nomad variables its templates read
// (nomadVar, nomadVarList), as the task's workload identity may read
// them. It must be safe for concurrent use.
type VariableSources interface {
	ForTask(alloc *structs.Allocation, task string) template.VariableSource
}

// maxTemplateSource bounds a template's source file, as structs bounds
// its inline data.
const maxTemplateSource = 1 << 20

// templateRetry bounds the pause before a watch whose variable reads
// failed (a server out of reach) tries again.
const (
	templateRetryMin = time.Second
	templateRetryMax = 30 * time.Second
)

// templateHook renders the task's templates into its directory before
// each run, and the env = true ones into its environment. While the run
// lasts it watches the variables the templates read; when one changes it
// renders them again (after the wait block's quiet time), writes the
// files that changed, and applies their change_mode after a random splay:
// a restart of the task (one for all), its change_signal, its
// change_script, or nothing. The next run's Prestart, or the runner's
// end, stops the watch.
type templateHook struct {
	tr     *TaskRunner
	vars   VariableSources
	logger hclog.Logger

	mu       sync.Mutex
	stop     context.CancelFunc
	watching sync.WaitGroup
}

func (*templateHook) Name() string { return "templates" }

// renderedTemplate is one template block of a run: parsed, where it
// goes, and what it last wrote.
type renderedTemplate struct {
	spec   *structs.Template
	where  string
	parsed *template.Template
	// dest is the destination relative to the allocation directory.
	dest   string
	output []byte
}

// templateRun is what a run's templates render with.
type templateRun struct {
	task      *structs.Task
	dir       *allocdir.TaskDir
	env       map[string]string
	vars      template.VariableSource
	namespace string
	tmpls     []*renderedTemplate
}

func (h *templateHook) Prestart(ctx context.Context, req *prestartRequest) (bool, error) {
	h.stopWatch()
	if len(req.Task.Templates) == 0 {
		return false, nil
	}
	run, err := h.prepare(ctx, req)
	if err != nil {
		return false, templateFailure(err)
	}
	deps, err := run.renderAll(ctx, true)
	if err != nil {
		return false, templateFailure(err)
	}
	for _, rt := range run.tmpls {
		if !rt.spec.Envvars {
			continue
		}
		vars, err := parseEnvFile(rt.output)
		if err != nil {
			return false, templateFailure(fmt.Errorf("%s: env: %w", rt.where, err))
		}
		for k, v := range vars {
			req.Env.vars[k] = v
		}
	}
	if len(deps) > 0 && run.watched() {
		h.startWatch(run, deps)
	}
	return false, nil
}

// templateFailure is the error of a run whose templates could not be
// rendered: a recoverable one, since what it reads may change, with the
// event that says why.
func templateFailure(err error) error {
	err = fmt.Errorf("template: %w", err)
	return drivers.NewRecoverableError(&hookError{err: err, event: setupFailureEvent(err, false)}, true)
}

// prepare reads and parses each template and resolves its destination.
func (h *templateHook) prepare(ctx context.Context, req *prestartRequest) (*templateRun, error) {
	alloc, _ := h.tr.snapshot()
	run := &templateRun{task: req.Task, dir: req.TaskDir, env: req.Env.Map(), namespace: alloc.Namespace}
	if h.vars != nil {
		run.vars = h.vars.ForTask(alloc, req.Task.Name)
	}
	where := fmt.Sprintf("task %q", req.Task.Name)
	for i, spec := range req.Task.Templates {
		rt := &renderedTemplate{spec: spec, where: structs.TemplateWhere(where, i, spec)}
		text := spec.EmbeddedTmpl
		if spec.SourcePath != "" {
			data, err := readInTaskDir(req.TaskDir, req.Env.replace(spec.SourcePath), maxTemplateSource)
			if err != nil {
				return nil, fmt.Errorf("%s: source: %w", rt.where, err)
			}
			text = string(data)
		}
		parsed, err := template.Parse(rt.where, text, spec.LeftDelim, spec.RightDelim, spec.ErrMissingKey)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rt.where, err)
		}
		rt.parsed = parsed
		if rt.dest, err = taskPath(req.TaskDir, req.Env.replace(spec.DestPath)); err != nil {
			return nil, fmt.Errorf("%s: destination: %w", rt.where, err)
		}
		run.tmpls = append(run.tmpls, rt)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// watched reports whether any template is to be rendered again on a
// change.
func (r *templateRun) watched() bool {
	return slices.ContainsFunc(r.tmpls, func(rt *renderedTemplate) bool { return !rt.spec.Once })
}

// renderAll renders every template (only the watched ones unless first)
// and writes those whose output changed. It returns the reads to watch.
func (r *templateRun) renderAll(ctx context.Context, first bool) ([]template.Dep, error) {
	var deps []template.Dep
	for _, rt := range r.tmpls {
		if !first && rt.spec.Once {
			continue
		}
		res, err := rt.parsed.Render(ctx, &template.Input{
			Env:       r.env,
			ReadFile:  func(p string) ([]byte, error) { return r.readFile(p) },
			Variables: r.vars,
			Namespace: r.namespace,
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rt.where, err)
		}
		if !rt.spec.Once {
			deps = append(deps, res.Deps...)
		}
		if !first && bytes.Equal(res.Output, rt.output) {
			continue
		}
		if err := writeTemplate(r.dir, rt.dest, res.Output, rt.spec, r.task.User); err != nil {
			return nil, fmt.Errorf("%s: %w", rt.where, err)
		}
		rt.output = res.Output
	}
	return deps, nil
}

// readFile is the file function's reader: a regular file of the task's
// own directory, as Nomad's sandbox has it; the other tasks' directories
// (their secrets/) are out of its reach.
func (r *templateRun) readFile(p string) ([]byte, error) {
	rel, err := taskPath(r.dir, p)
	if err != nil {
		return nil, err
	}
	own, err := filepath.Rel(r.dir.AllocDir, r.dir.Dir)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(rel, own+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s is outside the task's directory", p)
	}
	return readInTaskDir(r.dir, p, maxTemplateSource)
}

// taskPath resolves p, an interpolated template path, as Nomad does: an
// absolute path inside the allocation directory (a ${NOMAD_SECRETS_DIR}
// spelled out) stays where it is; any other absolute path ("/local/x") is
// relative to the task directory, as are relative ones. The result is
// relative to the allocation directory and never leaves it.
func taskPath(dir *allocdir.TaskDir, p string) (string, error) {
	if filepath.IsAbs(p) {
		if rel, err := filepath.Rel(dir.AllocDir, filepath.Clean(p)); err == nil && filepath.IsLocal(rel) {
			return rel, nil
		}
		p = strings.TrimLeft(p, "/")
	}
	return dir.Resolve(p)
}

// readInTaskDir reads a regular file of the allocation directory named
// as a template names it, at most limit bytes (see readAllocFile).
func readInTaskDir(dir *allocdir.TaskDir, p string, limit int64) ([]byte, error) {
	rel, err := taskPath(dir, p)
	if err != nil {
		return nil, err
	}
	data, err := readAllocFile(dir, rel, limit)
	if errors.Is(err, errTooLarge) {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, limit)
	}
	return data, err
}

// errTooLarge is a file over what its reader takes.
var errTooLarge = errors.New("file too large")

// readAllocFile reads rel, a regular file relative to the allocation
// directory, at most limit bytes, following no link (see package
// beneath): a link, a named pipe or a device planted there is refused,
// never opened.
func readAllocFile(dir *allocdir.TaskDir, rel string, limit int64) ([]byte, error) {
	root, err := beneath.Open(dir.AllocDir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(rel, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errTooLarge
	}
	return data, nil
}

// writeTemplate writes a rendered template to dest (relative to the
// allocation directory) whole: a temporary file beside it, its mode and
// owner set, renamed over it. The way there is made and walked beneath
// the allocation directory, following no link: a task that planted one
// gets an error, and nothing is written outside. A link in dest's own
// place is replaced, not followed.
func writeTemplate(dir *allocdir.TaskDir, dest string, data []byte, spec *structs.Template, user string) error {
	mode, err := structs.ParseTemplatePerms(spec.Perms)
	if err != nil {
		return err
	}
	root, err := beneath.Open(dir.AllocDir)
	if err != nil {
		return fmt.Errorf("write %s: %w", dest, err)
	}
	defer root.Close()
	parent, err := root.MkdirAll(filepath.Dir(dest), 0o755)
	if err != nil {
		return fmt.Errorf("write %s: %w", dest, err)
	}
	defer parent.Close()
	tmp, name, err := parent.CreateTemp(".template-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", dest, err)
	}
	defer parent.Remove(name) // a no-op once renamed
	if err := fillTemplateFile(tmp, data, os.FileMode(mode), spec, user); err != nil {
		return fmt.Errorf("write %s: %w", dest, err)
	}
	if err := parent.Rename(name, filepath.Base(dest)); err != nil {
		return fmt.Errorf("write %s: %w", dest, err)
	}
	return nil
}

// fillTemplateFile writes data to tmp, sets its mode and owner (the
// template's uid and gid, else the task's user), and closes it.
func fillTemplateFile(tmp *os.File, data []byte, mode os.FileMode, spec *structs.Template, user string) error {
	defer tmp.Close()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	uid, gid := -1, -1
	if owner, ok, err := taskOwner(user); err != nil {
		return err
	} else if ok {
		uid, gid = owner.UID, owner.GID
	}
	if spec.Uid != nil {
		uid = *spec.Uid
	}
	if spec.Gid != nil {
		gid = *spec.Gid
	}
	if (uid != -1 && uid != os.Geteuid()) || (gid != -1 && gid != os.Getegid()) {
		if err := tmp.Chown(uid, gid); err != nil {
			return fmt.Errorf("give the file to uid %d gid %d: %w", uid, gid, err)
		}
	}
	return tmp.Close()
}

// parseEnvFile reads KEY=VALUE lines, as an env = true template renders
// them: blank lines and # comments are skipped, an "export " prefix is
// dropped, a value in double quotes is unquoted (escapes included), one in
// single quotes taken as it is.
func parseEnvFile(data []byte) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxTemplateSource)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		key, value, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, " \t\x00") {
			return nil, fmt.Errorf("line %d is not KEY=VALUE", n)
		}
		value = strings.TrimSpace(value)
		switch {
		case len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"':
			if unq, err := strconv.Unquote(value); err == nil {
				value = unq
			} else {
				value = value[1 : len(value)-1]
			}
		case len(value) >= 2 && value[0] == '\'' && value[len(value)-1] == '\'':
			value = value[1 : len(value)-1]
		}
		out[key] = value
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// startWatch watches deps for the run until stopWatch or the runner's
// end.
func (h *templateHook) startWatch(run *templateRun, deps []template.Dep) {
	h.goWatch(func(ctx context.Context) { h.watch(ctx, run, deps) })
}

// resume takes up the watch of a run the runner re-attached to after an
// agent restart, on a goroutine of its own (a variable read may wait):
// the templates are rendered again; a file whose content changed while
// the agent was down is written and its change_mode applied, as for any
// change; then the watch goes on.
func (h *templateHook) resume() {
	alloc, task := h.tr.snapshot()
	if len(task.Templates) == 0 {
		return
	}
	env := buildTaskEnv(h.tr.withOwnState(alloc), task, h.tr.taskDir, h.tr.node)
	req := &prestartRequest{Task: task, TaskDir: h.tr.taskDir, Env: env}
	h.goWatch(func(ctx context.Context) {
		run, err := h.prepare(ctx, req)
		if err != nil {
			if ctx.Err() == nil {
				h.tr.emit(newEvent(structs.TaskHookFailed, "Template failed: "+err.Error()))
			}
			return
		}
		// What the files hold is what the run last saw.
		for _, rt := range run.tmpls {
			rt.output, _ = readAllocFile(run.dir, rt.dest, maxOutputFile)
		}
		changed, deps, err := h.settleAndRender(ctx, run)
		if err != nil {
			if ctx.Err() == nil {
				h.tr.emit(newEvent(structs.TaskHookFailed, "Template failed: "+err.Error()))
			}
			return
		}
		if len(changed) > 0 {
			h.applyChanges(ctx, changed)
		}
		if run.watched() {
			h.watch(ctx, run, deps)
		}
	})
}

// maxOutputFile bounds what resume reads back of a rendered file.
const maxOutputFile = 16 << 20

// goWatch runs fn on a goroutine until stopWatch or the runner's end
// cancels its context.
func (h *templateHook) goWatch(fn func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	h.mu.Lock()
	h.stop = cancel
	h.mu.Unlock()
	h.watching.Add(1)
	go func() {
		defer h.watching.Done()
		defer cancel()
		go func() {
			select {
			case <-h.tr.waitCh:
				cancel()
			case <-ctx.Done():
			}
		}()
		fn(ctx)
	}()
}

// stopWatch stops the previous run's watch and waits until it is gone.
func (h *templateHook) stopWatch() {
	h.mu.Lock()
	cancel := h.stop
	h.stop = nil
	h.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	h.watching.Wait()
}

// watch is the loop of one run's watch: wait for a change, settle,
// render, act.
func (h *templateHook) watch(ctx context.Context, run *templateRun, deps []template.Dep) {
	backoff := templateRetryMin
	for ctx.Err() == nil {
		if err := waitAnyDep(ctx, run.vars, deps); err != nil {
			if ctx.Err() != nil {
				return
			}
			h.logger.Warn("template watch failed, trying again", "error", err, "in", backoff)
			if !sleepCtx(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, templateRetryMax)
			continue
		}
		backoff = templateRetryMin
		changed, next, err := h.settleAndRender(ctx, run)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			h.tr.emit(newEvent(structs.TaskHookFailed, "Template failed: "+err.Error()))
			// Keep what was written; watch what the failed render read
			// to try again on its next change.
			if next == nil {
				if !sleepCtx(ctx, templateRetryMax) {
					return
				}
				continue
			}
		}
		deps = next
		if len(changed) > 0 {
			h.applyChanges(ctx, changed)
		}
	}
}

// settleAndRender renders the templates again once the data has been
// quiet for the longest wait min any template sets, or its wait max
// passed since the first change. It returns the templates whose files
// changed and the reads to watch next.
func (h *templateHook) settleAndRender(ctx context.Context, run *templateRun) ([]*structs.Template, []template.Dep, error) {
	before := make([][]byte, len(run.tmpls))
	for i, rt := range run.tmpls {
		before[i] = rt.output
	}
	quiet, most := run.wait()
	first := time.Now()
	var deps []template.Dep
	for {
		var err error
		deps, err = run.renderAll(ctx, false)
		if err != nil {
			return nil, deps, err
		}
		settle := quiet
		if most > 0 {
			settle = min(settle, most-time.Since(first))
		}
		if settle <= 0 {
			break
		}
		wctx, cancel := context.WithTimeout(ctx, settle)
		err = waitAnyDep(wctx, run.vars, deps)
		cancel()
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if err != nil {
			break // quiet: no change within the wait
		}
	}
	var changed []*structs.Template
	for i, rt := range run.tmpls {
		if !bytes.Equal(before[i], rt.output) {
			changed = append(changed, rt.spec)
		}
	}
	return changed, deps, nil
}

// wait is the templates' wait block, settled together: the longest min
// and the longest max any of them sets.
func (r *templateRun) wait() (quiet, most time.Duration) {
	for _, rt := range r.tmpls {
		if w := rt.spec.Wait; w != nil {
			if w.Min != nil {
				quiet = max(quiet, *w.Min)
			}
			if w.Max != nil {
				most = max(most, *w.Max)
			}
		}
	}
	return quiet, most
}

// applyChanges applies the change modes of the templates whose files
// changed, after the longest splay among them: one restart when any asks
// for it (which also brings the others' changes), otherwise each signal
// once and each script.
func (h *templateHook) applyChanges(ctx context.Context, changed []*structs.Template) {
	var splay time.Duration
	restart := false
	var signals []string
	var scripts []*structs.ChangeScript
	for _, t := range changed {
		switch t.ChangeMode {
		case structs.TemplateChangeModeRestart:
			restart = true
		case structs.TemplateChangeModeSignal:
			if !slices.Contains(signals, t.ChangeSignal) {
				signals = append(signals, t.ChangeSignal)
			}
		case structs.TemplateChangeModeScript:
			scripts = append(scripts, t.ChangeScript)
		default:
			continue
		}
		splay = max(splay, t.Splay)
	}
	if !restart && len(signals) == 0 && len(scripts) == 0 {
		return
	}
	if splay > 0 && !sleepCtx(ctx, rand.N(splay)) {
		return
	}
	if !h.awaitRunning(ctx) {
		return
	}
	if restart {
		if err := h.tr.Restart(ctx, NewRestartSignalEvent("Template with change_mode restart re-rendered")); err != nil && ctx.Err() == nil {
			h.logger.Warn("restart for a re-rendered template failed", "error", err)
		}
		return
	}
	for _, sig := range signals {
		if err := h.tr.Signal(sig, "Template re-rendered"); err != nil {
			h.logger.Warn("signal for a re-rendered template failed", "signal", sig, "error", err)
		}
	}
	for _, cs := range scripts {
		h.runChangeScript(ctx, cs)
	}
}

// templateRunPoll is how often a change that came while the run was
// still starting looks again whether it has started.
const templateRunPoll = 50 * time.Millisecond

// awaitRunning waits until the run whose templates changed has started:
// a change may come between the render and the driver's start. It
// reports false when ctx ended first (the run ended, the next one
// renders afresh).
func (h *templateHook) awaitRunning(ctx context.Context) bool {
	for h.tr.currentHandle() == nil {
		if !sleepCtx(ctx, templateRunPoll) {
			return false
		}
	}
	return true
}

// runChangeScript runs a change_script in the task; a failure is a task
// event, and kills the task when the script asks for it.
func (h *templateHook) runChangeScript(ctx context.Context, cs *structs.ChangeScript) {
	err := h.execInTask(ctx, cs)
	if err == nil || ctx.Err() != nil {
		if err == nil {
			h.tr.emit(newEvent(structs.TaskHookMessage, fmt.Sprintf("Template ran script %s with arguments %q on change", cs.Command, cs.Args)))
		}
		return
	}
	msg := fmt.Sprintf("Template failed to run script %s with arguments %q on change: %v", cs.Command, cs.Args, err)
	if !cs.FailOnError {
		h.tr.emit(newEvent(structs.TaskHookMessage, msg))
		return
	}
	go func() {
		// Kill waits for the runner's end, which stops this watch.
		_ = h.tr.Kill(context.Background(), NewKillingEvent(msg))
	}()
}

// execInTask runs the script through the task's driver.
func (h *templateHook) execInTask(ctx context.Context, cs *structs.ChangeScript) error {
	handle := h.tr.currentHandle()
	if handle == nil {
		return ErrTaskNotRunning
	}
	drv, ok := h.tr.drivers.Lookup(handle.Driver)
	if !ok {
		return fmt.Errorf("driver %q is not available on this node", handle.Driver)
	}
	execer, ok := drv.(drivers.Execer)
	if !ok {
		return fmt.Errorf("driver %q cannot run commands in its tasks", handle.Driver)
	}
	res, err := execer.ExecTask(ctx, handle.Config.ID, append([]string{cs.Command}, cs.Args...), cs.Timeout)
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("exit code %d: %s", res.ExitCode, bytes.TrimSpace(res.Output))
	}
	return nil
}

// waitAnyDep waits until one of deps changes (nil), or the first error.
func waitAnyDep(ctx context.Context, src template.VariableSource, deps []template.Dep) error {
	if src == nil || len(deps) == 0 {
		<-ctx.Done()
		return ctx.Err()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan error, len(deps))
	for _, d := range deps {
		go func() { results <- d.Wait(ctx, src) }()
	}
	err := <-results
	cancel()
	for range len(deps) - 1 {
		<-results
	}
	return err
}

// sleepCtx waits d; false when ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// resumeTemplates takes up the templates' watch of the run the runner
// re-attached to.
func (tr *TaskRunner) resumeTemplates() {
	for _, hook := range tr.prestartHooks {
		if h, ok := hook.(*templateHook); ok {
			h.resume()
		}
	}
}
