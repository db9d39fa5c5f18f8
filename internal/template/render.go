package template

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"text/template"
)

// maxOutput bounds what one render writes: a template that loops cannot
// fill the client's memory.
const maxOutput = 16 << 20

// Template is a parsed template, ready to render.
type Template struct {
	name          string
	text          string
	left, right   string
	errMissingKey bool
}

// Parse checks text (see Check) and returns it ready to render. name
// names it in errors.
func Parse(name, text, left, right string, errMissingKey bool) (*Template, error) {
	if err := Check(text, left, right); err != nil {
		return nil, err
	}
	return &Template{name: name, text: text, left: left, right: right, errMissingKey: errMissingKey}, nil
}

// Input is what a render reads.
type Input struct {
	// Env is the task's environment, for env and its kin.
	Env map[string]string
	// ReadFile reads a file of the task's directory, for file; nil
	// refuses every file.
	ReadFile func(path string) ([]byte, error)
	// Variables serves nomadVar and its kin; nil fails them with
	// ErrNoVariables.
	Variables VariableSource
	// Namespace is the task's job's.
	Namespace string
}

// Result is one render's output and the reads whose change would change
// it.
type Result struct {
	Output []byte
	Deps   []Dep
}

// render is one render of a template: the functions' state.
type render struct {
	ctx     context.Context
	in      *Input
	deps    []Dep
	scratch *scratch
	tmpl    *template.Template
	// reads and lists are the variables read so far: a template that
	// reads one many times asks the servers once, and sees one answer.
	reads map[VarQuery]*Variable
	lists map[VarQuery][]VariableMeta
	// svcReads are the service reads so far, alike.
	svcReads map[ServiceQuery][]Service
}

// Render renders the template once. It gives up when ctx is done (a
// variable read that blocks, a long loop that writes).
func (t *Template) Render(ctx context.Context, in *Input) (*Result, error) {
	r := &render{
		ctx: ctx, in: in, scratch: &scratch{values: map[string]any{}},
		reads: map[VarQuery]*Variable{}, lists: map[VarQuery][]VariableMeta{},
		svcReads: map[ServiceQuery][]Service{},
	}
	tmpl := template.New(t.name).Delims(t.left, t.right).Funcs(r.funcs())
	if t.errMissingKey {
		tmpl = tmpl.Option("missingkey=error")
	}
	tmpl, err := tmpl.Parse(t.text)
	if err != nil {
		return nil, err
	}
	r.tmpl = tmpl
	var out bytes.Buffer
	w := &limitedWriter{w: &out, left: maxOutput, ctx: ctx}
	if err := tmpl.Execute(w, nil); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return &Result{Output: out.Bytes(), Deps: r.deps}, nil
}

// errTooLarge is a render's output over maxOutput.
var errTooLarge = fmt.Errorf("the rendered template is larger than %d MiB", maxOutput>>20)

// limitedWriter stops a render that writes too much, or whose context is
// done.
type limitedWriter struct {
	w    io.Writer
	left int
	ctx  context.Context
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if err := l.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) > l.left {
		return 0, errTooLarge
	}
	l.left -= len(p)
	return l.w.Write(p)
}
