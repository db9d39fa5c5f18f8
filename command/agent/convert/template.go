package convert

import (
	"slices"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// templatesFromAPI converts a task's template blocks. A splay or a script
// timeout left out gets Nomad's default here, where "left out" can still
// be told from zero.
func templatesFromAPI(in []*api.Template) []*structs.Template {
	if in == nil {
		return nil
	}
	out := make([]*structs.Template, len(in))
	for i, t := range in {
		if t != nil {
			out[i] = templateFromAPI(t)
		}
	}
	return out
}

func templateFromAPI(in *api.Template) *structs.Template {
	t := &structs.Template{
		SourcePath:    Deref(in.SourcePath),
		EmbeddedTmpl:  Deref(in.EmbeddedTmpl),
		DestPath:      Deref(in.DestPath),
		ChangeMode:    Deref(in.ChangeMode),
		ChangeSignal:  Deref(in.ChangeSignal),
		Once:          Deref(in.Once),
		Splay:         structs.DefaultTemplateSplay,
		Perms:         Deref(in.Perms),
		Uid:           clonePtr(in.Uid),
		Gid:           clonePtr(in.Gid),
		LeftDelim:     Deref(in.LeftDelim),
		RightDelim:    Deref(in.RightDelim),
		Envvars:       Deref(in.Envvars),
		ErrMissingKey: Deref(in.ErrMissingKey),
	}
	setIf(&t.Splay, in.Splay)
	if cs := in.ChangeScript; cs != nil {
		t.ChangeScript = &structs.ChangeScript{
			Command:     Deref(cs.Command),
			Args:        slices.Clone(cs.Args),
			Timeout:     structs.DefaultChangeScriptTimeout,
			FailOnError: Deref(cs.FailOnError),
		}
		setIf(&t.ChangeScript.Timeout, cs.Timeout)
	}
	if w := in.Wait; w != nil {
		t.Wait = &structs.WaitConfig{Min: clonePtr(w.Min), Max: clonePtr(w.Max)}
	}
	return t
}

func templatesToAPI(in []*structs.Template) []*api.Template {
	if in == nil {
		return nil
	}
	out := make([]*api.Template, len(in))
	for i, t := range in {
		if t != nil {
			out[i] = templateToAPI(t)
		}
	}
	return out
}

func templateToAPI(t *structs.Template) *api.Template {
	out := &api.Template{
		SourcePath:    new(t.SourcePath),
		EmbeddedTmpl:  new(t.EmbeddedTmpl),
		DestPath:      new(t.DestPath),
		ChangeMode:    new(t.ChangeMode),
		ChangeSignal:  new(t.ChangeSignal),
		Once:          new(t.Once),
		Splay:         new(t.Splay),
		Perms:         new(t.Perms),
		Uid:           clonePtr(t.Uid),
		Gid:           clonePtr(t.Gid),
		LeftDelim:     new(t.LeftDelim),
		RightDelim:    new(t.RightDelim),
		Envvars:       new(t.Envvars),
		ErrMissingKey: new(t.ErrMissingKey),
	}
	if cs := t.ChangeScript; cs != nil {
		out.ChangeScript = &api.ChangeScript{
			Command:     new(cs.Command),
			Args:        slices.Clone(cs.Args),
			Timeout:     new(cs.Timeout),
			FailOnError: new(cs.FailOnError),
		}
	}
	if w := t.Wait; w != nil {
		out.Wait = &api.WaitConfig{Min: clonePtr(w.Min), Max: clonePtr(w.Max)}
	}
	return out
}
