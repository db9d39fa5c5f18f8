package taskrunner

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/internal/template"
	"github.com/drover-io/drover/internal/template/templatetest"
	"github.com/drover-io/drover/structs"
)

// waitRun is a run of one template of nomad/jobs/app's "v", with the
// given wait block, rendered once.
func waitRun(t *testing.T, dir *allocdir.TaskDir, vars *templatetest.Variables, wait *structs.WaitConfig) (*templateRun, []template.Dep) {
	t.Helper()
	spec := varTemplate(structs.TemplateChangeModeNoop)
	spec.Wait = wait
	parsed, err := template.Parse("t", spec.EmbeddedTmpl, spec.LeftDelim, spec.RightDelim, false)
	must.NoError(t, err)
	dest, err := taskPath(dir, spec.DestPath)
	must.NoError(t, err)
	run := &templateRun{
		task: &structs.Task{Name: "web"}, dir: dir, vars: vars, namespace: "default",
		tmpls: []*renderedTemplate{{spec: spec, where: "t", parsed: parsed, dest: dest}},
	}
	deps, err := run.renderAll(t.Context(), true)
	must.NoError(t, err)
	return run, deps
}

func waitTaskDir(t *testing.T) *allocdir.TaskDir {
	t.Helper()
	ad, err := allocdir.New(t.TempDir(), "alloc-1")
	must.NoError(t, err)
	must.NoError(t, ad.Build())
	td, err := ad.TaskDir("web")
	must.NoError(t, err)
	must.NoError(t, td.Build())
	return td
}

// TestTemplateHook_waitSettles: a change is written once the data has
// been quiet for wait's min; changes that keep coming are written at its
// max after the first.
func TestTemplateHook_waitSettles(t *testing.T) {
	dir := waitTaskDir(t)
	h := &templateHook{}
	cases := []struct {
		name    string
		wait    *structs.WaitConfig
		changes []time.Duration // after the first change
		took    time.Duration
		want    string
	}{
		{name: "no wait", changes: nil, took: 0, want: "v=2"},
		{name: "quiet after the last change", wait: &structs.WaitConfig{Min: new(2 * time.Second), Max: new(time.Minute)},
			changes: []time.Duration{time.Second, 2500 * time.Millisecond}, took: 4500 * time.Millisecond, want: "v=4"},
		{name: "cut at max", wait: &structs.WaitConfig{Min: new(2 * time.Second), Max: new(5 * time.Second)},
			changes: []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second, 6 * time.Second}, took: 5 * time.Second, want: "v=6"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				vars := templatetest.NewVariables()
				vars.Put("default", "nomad/jobs/app", map[string]string{"v": "1"})
				run, _ := waitRun(t, dir, vars, tc.wait)
				vars.Put("default", "nomad/jobs/app", map[string]string{"v": "2"})
				start := time.Now()
				putsDone := make(chan struct{})
				go func() {
					defer close(putsDone)
					prev := time.Duration(0)
					for i, at := range tc.changes {
						time.Sleep(at - prev)
						prev = at
						vars.Put("default", "nomad/jobs/app", map[string]string{"v": string(rune('3' + i))})
					}
				}()
				changed, deps, err := h.settleAndRender(t.Context(), run)
				must.NoError(t, err)
				must.Eq(t, tc.took, time.Since(start))
				must.Len(t, 1, changed)
				must.Len(t, 1, deps)
				must.Eq(t, tc.want, string(run.tmpls[0].output))
				must.Eq(t, tc.want, readFile(t, dir.LocalDir+"/v.txt"))
				<-putsDone
			})
		})
	}
}
