package unsupported_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/api/unsupported"
)

// structField is one field of a struct as its JSON names it, with the
// jobspec form Nomad's type gives it (its hcl tag).
type structField struct {
	name string
	typ  reflect.Type
	hcl  string
}

func elem(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return t
}

// jsonFields lists the JSON fields of struct type t, embedded structs'
// promoted.
func jsonFields(t reflect.Type) []structField {
	var out []structField
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && elem(f.Type).Kind() == reflect.Struct {
			out = append(out, jsonFields(elem(f.Type))...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, structField{name: name, typ: f.Type, hcl: f.Tag.Get("hcl")})
	}
	return out
}

// missing is a field of Nomad's job that Drover's job has no place for.
type missing struct {
	path, parent string
	hcl          string
}

// missingFields walks Nomad's type n beside Drover's d and lists the
// fields Drover's lacks, as generic JSON paths, with the jobspec block
// type they sit in.
func missingFields(n, d reflect.Type, path, parent string) []missing {
	n, d = elem(n), elem(d)
	if n.Kind() != reflect.Struct || d.Kind() != reflect.Struct {
		return nil
	}
	var out []missing
	ours := jsonFields(d)
	for _, f := range jsonFields(n) {
		p := f.name
		if path != "" {
			p = path + "." + f.name
		}
		i := slices.IndexFunc(ours, func(o structField) bool { return strings.EqualFold(o.name, f.name) })
		if i < 0 {
			out = append(out, missing{path: p, parent: parent, hcl: f.hcl})
			continue
		}
		child, ok := hclBlockOf[f.name]
		if !ok {
			child = parent
		}
		if k := elem(f.typ).Kind(); k == reflect.Slice || f.typ.Kind() == reflect.Slice {
			p += "[]"
		}
		out = append(out, missingFields(f.typ, ours[i].typ, p, child)...)
	}
	return out
}

// hclBlockOf names the jobspec block each struct-valued field of a job is
// written as, where the walk descends.
var hclBlockOf = map[string]string{
	"TaskGroups": "group", "Tasks": "task", "Resources": "resources",
	"RestartPolicy": "restart", "LogConfig": "logs", "Periodic": "periodic",
	"Reschedule": "reschedule", "ReschedulePolicy": "reschedule", "Lifecycle": "lifecycle",
	"Artifacts": "artifact", "Constraints": "constraint", "Identity": "identity",
	"EphemeralDisk": "ephemeral_disk", "Networks": "network", "ReservedPorts": "port",
	"DynamicPorts": "port", "DNS": "dns",
	"Templates": "template", "ChangeScript": "change_script", "Wait": "wait",
	"Services": "service", "Checks": "check",
}

// TestFields_CoverNomadsJob holds the table to Nomad's job type and
// Drover's: every field of Nomad's job that Drover's lacks is in the
// table, and every field in the table is Nomad's and not Drover's (one
// Drover implements leaves the table).
func TestFields_CoverNomadsJob(t *testing.T) {
	gaps := missingFields(reflect.TypeFor[nomadapi.Job](), reflect.TypeFor[api.Job](), "", "job")
	must.SliceNotEmpty(t, gaps)
	byPath := map[string]missing{}
	for _, m := range gaps {
		byPath[m.path] = m
		_, ok := unsupported.LookupJSON(m.path)
		must.True(t, ok, must.Sprintf("Nomad's job field %q is not Drover's and not in api/unsupported's table: add it, refused or warned, with its reason", m.path))
	}
	for _, f := range unsupported.Fields() {
		if f.JSON == "" {
			continue
		}
		_, ok := byPath[f.JSON]
		must.True(t, ok, must.Sprintf("the table lists %q, which is not a field of Nomad's job that Drover's lacks: if Drover implements it now, remove its row", f.JSON))
	}
}

// TestFields_HCLFormsAreNomads holds each field's jobspec forms to the hcl
// tags of Nomad's types: the form Nomad gives a field is listed (in its
// row, or in another row for the same block, as restart's
// render_templates), with the right kind.
func TestFields_HCLFormsAreNomads(t *testing.T) {
	placed := map[string]unsupported.Field{}
	for _, f := range unsupported.Fields() {
		for _, h := range f.HCL {
			_, dup := placed[h]
			must.False(t, dup, must.Sprintf("jobspec form %q is in two rows", h))
			placed[h] = f
		}
	}
	for _, m := range missingFields(reflect.TypeFor[nomadapi.Job](), reflect.TypeFor[api.Job](), "", "job") {
		name, kind, _ := strings.Cut(m.hcl, ",")
		if name == "" {
			continue // the API alone carries it
		}
		form := m.parent + "." + name
		if form == "task.identity" {
			// Nomad's identity blocks all go to Identities; Drover's
			// jobspec decodes the default one into Identity, and refuses
			// a named one itself.
			continue
		}
		f, ok := placed[form]
		must.True(t, ok, must.Sprintf("Nomad writes %s as %q in a jobspec; list that form in the table", m.path, form))
		must.Eq(t, kind == "block", f.Block, must.Sprintf("%s: Nomad's form %q is a block: %v", m.path, form, kind == "block"))
	}
}

func TestFields_Rows(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range unsupported.Fields() {
		must.True(t, f.JSON != "" || len(f.HCL) > 0, must.Sprintf("row %+v has no form", f))
		must.NotEq(t, "", f.Reason, must.Sprintf("%s has no reason", f.JSON))
		must.True(t, f.Decision == unsupported.Refuse || f.Decision == unsupported.Warn, must.Sprintf("%s: decision %d", f.JSON, f.Decision))
		if f.JSON != "" {
			must.False(t, seen[f.JSON], must.Sprintf("%s is in two rows", f.JSON))
			seen[f.JSON] = true
		}
		if f.Default != "" {
			must.Eq(t, unsupported.Refuse, f.Decision, must.Sprintf("%s: a default matters to a refused field only", f.JSON))
			must.True(t, json.Valid([]byte(f.Default)), must.Sprintf("%s: default %s", f.JSON, f.Default))
		}
	}
}

// TestFields_DefaultsAreNomads holds the defaults in the table to the ones
// Nomad's client fills in.
func TestFields_DefaultsAreNomads(t *testing.T) {
	cases := map[string]any{
		"Migrate":              nomadapi.DefaultMigrateStrategy(),
		"TaskGroups[].Migrate": nomadapi.DefaultMigrateStrategy(),
		"TaskGroups[].Tasks[].Templates[].ChangeScript.RunOnFirstRender": func() bool {
			cs := &nomadapi.ChangeScript{}
			cs.Canonicalize()
			return *cs.RunOnFirstRender
		}(),
		"TaskGroups[].Services[].Cluster":         serviceCluster(),
		"TaskGroups[].Tasks[].Services[].Cluster": serviceCluster(),
	}
	for path, nomadDefault := range cases {
		f, ok := unsupported.LookupJSON(path)
		must.True(t, ok)
		data, err := json.Marshal(nomadDefault)
		must.NoError(t, err)
		var want, got any
		must.NoError(t, json.Unmarshal(data, &want))
		must.NoError(t, json.Unmarshal([]byte(f.Default), &got))
		must.Eq(t, want, got, must.Sprintf("%s: the table's default is not Nomad's", path))

		d, isDefault := f.Decide(want)
		must.Eq(t, unsupported.Warn, d)
		must.True(t, isDefault)
	}
	for _, f := range unsupported.Fields() {
		if f.Default != "" {
			_, listed := cases[f.JSON]
			must.True(t, listed, must.Sprintf("%s has a default this test does not compare with Nomad's", f.JSON))
		}
	}
}

func TestDecide(t *testing.T) {
	migrate, _ := unsupported.LookupJSON("TaskGroups[3].migrate")
	cases := []struct {
		raw       string
		want      unsupported.Decision
		isDefault bool
	}{
		{`{"MaxParallel": 1, "HealthCheck": "checks"}`, unsupported.Warn, true},
		{`{"maxparallel": 1, "MinHealthyTime": null}`, unsupported.Warn, true},
		{`{"MaxParallel": 2}`, unsupported.Refuse, false},
		{`{"HealthyDeadline": 1}`, unsupported.Refuse, false},
		{`{"Bogus": 1}`, unsupported.Refuse, false},
		{`[1]`, unsupported.Refuse, false},
	}
	for _, tc := range cases {
		var raw any
		must.NoError(t, json.Unmarshal([]byte(tc.raw), &raw))
		d, isDefault := migrate.Decide(raw)
		must.Eq(t, tc.want, d, must.Sprint(tc.raw))
		must.Eq(t, tc.isDefault, isDefault, must.Sprint(tc.raw))
	}

	plugin, ok := unsupported.LookupJSON("TaskGroups[0].Tasks[1].CSIPluginConfig")
	must.True(t, ok)
	d, _ := plugin.Decide(map[string]any{"ID": "x"})
	must.Eq(t, unsupported.Refuse, d)
}

func TestGenericPath(t *testing.T) {
	must.Eq(t, "TaskGroups[].Tasks[].Templates", unsupported.GenericPath("TaskGroups[0].Tasks[12].Templates"))
	must.Eq(t, "TaskGroups[].Volumes[].Source", unsupported.GenericPath(`TaskGroups[0].Volumes["data \"x\""].Source`))
}

func TestLookupHCL(t *testing.T) {
	f, ok := unsupported.LookupHCL("group", "vault")
	must.True(t, ok)
	must.Eq(t, "TaskGroups[].Tasks[].Vault", f.JSON)
	_, ok = unsupported.LookupHCL("group", "task")
	must.False(t, ok)
}

func TestAgentSettings_Rows(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range unsupported.AgentSettings() {
		must.False(t, seen[s.Path], must.Sprintf("agent setting %q is listed twice", s.Path))
		seen[s.Path] = true
		must.NotEq(t, "", s.Why, must.Sprintf("agent setting %q says not why", s.Path))
		block, name := s.Block()
		must.NotEq(t, "", name)
		must.SliceContains(t, []string{"", "ports", "addresses", "advertise", "server", "client"}, block,
			must.Sprintf("agent setting %q: the agent reads Nomad's settings in the top level and the ports, addresses, advertise, server and client blocks only", s.Path))
	}
}

func TestAgentSetting_Block(t *testing.T) {
	block, name := unsupported.AgentSetting{Path: "ports.serf"}.Block()
	must.Eq(t, "ports", block)
	must.Eq(t, "serf", name)
	block, name = unsupported.AgentSetting{Path: "vault"}.Block()
	must.Eq(t, "", block)
	must.Eq(t, "vault", name)
}

// serviceCluster is the Cluster Nomad's client gives a service.
func serviceCluster() string {
	j := nomadapi.NewServiceJob("j", "j", "global", 50)
	g := nomadapi.NewTaskGroup("g", 1)
	g.Services = []*nomadapi.Service{{Name: "s"}}
	j.AddTaskGroup(g)
	j.Canonicalize()
	return j.TaskGroups[0].Services[0].Cluster
}
