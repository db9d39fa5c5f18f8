package structs

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// TestValidate_templates holds a template block's rules: each valid case
// passes, each invalid one fails with exactly the problems listed.
func TestValidate_templates(t *testing.T) {
	const where = `Task group "g" task "t" template #1`
	cases := []struct {
		name string
		tmpl *Template
		want []string
	}{
		{name: "inline", tmpl: &Template{DestPath: "local/a", EmbeddedTmpl: "x"}},
		{name: "source, absolute destination as Nomad takes it", tmpl: &Template{DestPath: "/local/a", SourcePath: "local/a.tpl"}},
		{name: "destination in a variable", tmpl: &Template{DestPath: "${NOMAD_SECRETS_DIR}/a", EmbeddedTmpl: "x"}},
		{name: "shared alloc dir", tmpl: &Template{DestPath: "../alloc/a", EmbeddedTmpl: "x"}},
		{name: "signal, env with restart", tmpl: &Template{DestPath: "local/a", EmbeddedTmpl: "x", ChangeMode: "signal", ChangeSignal: "sigusr1"}},
		{name: "script", tmpl: &Template{DestPath: "local/a", EmbeddedTmpl: "x", ChangeMode: "script", ChangeScript: &ChangeScript{Command: "/bin/true", Timeout: time.Second}}},
		{name: "env noop", tmpl: &Template{DestPath: "local/a", EmbeddedTmpl: "x", Envvars: true, ChangeMode: "noop"}},
		{name: "neither source nor data", tmpl: &Template{DestPath: "local/a"},
			want: []string{where + " (local/a): needs a source or data"}},
		{name: "both", tmpl: &Template{DestPath: "local/a", SourcePath: "s", EmbeddedTmpl: "x"},
			want: []string{where + " (local/a): sets both source and data: one says what to render"}},
		{name: "no destination", tmpl: &Template{EmbeddedTmpl: "x"},
			want: []string{where + ": Missing destination"}},
		{name: "escapes", tmpl: &Template{DestPath: "../../etc/passwd", SourcePath: "/../../x"},
			want: []string{
				where + ` (../../etc/passwd): source "/../../x" leaves the allocation directory`,
				where + ` (../../etc/passwd): destination "../../etc/passwd" leaves the allocation directory`,
			}},
		{name: "bad mode", tmpl: &Template{DestPath: "d", EmbeddedTmpl: "x", ChangeMode: "reload"},
			want: []string{where + ` (d): change_mode must be one of "noop", "restart", "signal" or "script", got "reload"`}},
		{name: "bad signal", tmpl: &Template{DestPath: "d", EmbeddedTmpl: "x", ChangeMode: "signal", ChangeSignal: "SIGNOPE"},
			want: []string{where + ` (d): change_signal "SIGNOPE" is not a known signal`}},
		{name: "script without block", tmpl: &Template{DestPath: "d", EmbeddedTmpl: "x", ChangeMode: "script"},
			want: []string{where + ` (d): change_mode "script" needs a change_script block`}},
		{name: "script without command", tmpl: &Template{DestPath: "d", EmbeddedTmpl: "x", ChangeMode: "script", ChangeScript: &ChangeScript{}},
			want: []string{where + ` (d): change_script needs a command`}},
		{name: "script block for restart", tmpl: &Template{DestPath: "d", EmbeddedTmpl: "x", ChangeScript: &ChangeScript{Command: "c"}},
			want: []string{where + ` (d): change_script is used only with change_mode "script", got "restart"`}},
		{name: "env with signal", tmpl: &Template{DestPath: "d", EmbeddedTmpl: "x", Envvars: true, ChangeMode: "signal"},
			want: []string{where + ` (d): change_mode "signal" cannot pass a new environment to the running task: env = true needs "restart" or "noop"`}},
		{name: "perms, ids, splay, delims, wait", tmpl: &Template{DestPath: "d", EmbeddedTmpl: "x", Perms: "0999", Uid: new(-1), Gid: new(-2),
			Splay: -time.Second, LeftDelim: "{ {", Wait: &WaitConfig{Min: new(time.Minute), Max: new(time.Second)}},
			want: []string{
				where + ` (d): splay must not be negative, got -1s`,
				where + ` (d): perms: "0999" is not an octal file mode such as "0644"`,
				where + ` (d): uid must not be negative, got -1`,
				where + ` (d): gid must not be negative, got -2`,
				where + ` (d): left_delimiter "{ {" must not contain white space`,
				where + ` (d): wait max (1s) must not be less than wait min (1m0s)`,
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob("batch")
			task(j).Templates = []*Template{tc.tmpl}
			j.Canonicalize()
			mustProblems(t, tc.want, j.Validate())
		})
	}
}

func TestValidate_templatesShareNoDestination(t *testing.T) {
	j := validJob("batch")
	task(j).Templates = []*Template{
		{DestPath: "local/a", EmbeddedTmpl: "x"},
		{DestPath: "/local/a", EmbeddedTmpl: "y"},
	}
	j.Canonicalize()
	mustProblems(t, []string{`Task group "g" task "t" template #2 (/local/a): destination "/local/a" is also template #1's`}, j.Validate())
}

func TestTemplate_canonicalize(t *testing.T) {
	tmpl := &Template{ChangeMode: "signal", ChangeSignal: ""}
	tmpl.canonicalize()
	must.Eq(t, &Template{ChangeMode: "signal", ChangeSignal: "SIGHUP", Perms: "0644", LeftDelim: "{{", RightDelim: "}}"}, tmpl)
	tmpl = &Template{ChangeSignal: "sigusr1"}
	tmpl.canonicalize()
	must.Eq(t, "restart", tmpl.ChangeMode)
	must.Eq(t, "SIGUSR1", tmpl.ChangeSignal)
}
