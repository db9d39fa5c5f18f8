package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/drover-io/drover/api"
)

// The formats "var get" and "var put" print a variable in (-out).
const (
	varOutNone     = "none"
	varOutTable    = "table"
	varOutJSON     = "json"
	varOutHCL      = "hcl"
	varOutTemplate = "go-template"
)

// formatVariable renders v as out says; tmpl is the go-template's text.
func formatVariable(v *api.Variable, out, tmpl string) (string, error) {
	switch out {
	case varOutTable:
		return formatVariableTable(v), nil
	case varOutJSON:
		b, err := json.MarshalIndent(v, "", "  ")
		return string(b), err
	case varOutHCL:
		return formatVariableHCL(v), nil
	case varOutTemplate:
		if tmpl == "" {
			return "", fmt.Errorf("-out %s needs a template (-template)", varOutTemplate)
		}
		t, err := template.New("variable").Parse(tmpl)
		if err != nil {
			return "", fmt.Errorf("parse -template: %w", err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, v); err != nil {
			return "", fmt.Errorf("run -template: %w", err)
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("unknown -out %q: one of %s, %s, %s, %s", out, varOutTable, varOutJSON, varOutHCL, varOutTemplate)
}

func formatVariableTable(v *api.Variable) string {
	rows := []string{
		"Namespace|" + v.Namespace,
		"Path|" + v.Path,
		"Create Time|" + formatVarTime(v.CreateTime),
		"Check Index|" + fmt.Sprint(v.ModifyIndex),
	}
	if v.Lock != nil {
		rows = append(rows, "Lock ID|"+v.Lock.ID, "Lock TTL|"+v.Lock.TTL, "Lock Delay|"+v.Lock.LockDelay)
	}
	out := formatKV(rows)
	if len(v.Items) == 0 {
		return out
	}
	items := make([]string, 0, len(v.Items))
	for _, k := range slices.Sorted(maps.Keys(v.Items)) {
		items = append(items, k+"|"+v.Items[k])
	}
	return out + "\n\nItems\n" + formatKV(items)
}

func formatVarTime(unixNano int64) string {
	if unixNano == 0 {
		return "<none>"
	}
	return time.Unix(0, unixNano).UTC().Format(time.RFC3339)
}

// formatVariableHCL renders v as a specification "var put" reads back.
func formatVariableHCL(v *api.Variable) string {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	body.SetAttributeValue("namespace", cty.StringVal(v.Namespace))
	body.SetAttributeValue("path", cty.StringVal(v.Path))
	body.SetAttributeValue("modify_index", cty.NumberUIntVal(v.ModifyIndex))
	body.AppendNewline()
	items := body.AppendNewBlock("items", nil).Body()
	for _, k := range slices.Sorted(maps.Keys(v.Items)) {
		items.SetAttributeValue(k, cty.StringVal(v.Items[k]))
	}
	return strings.TrimSpace(string(f.Bytes()))
}

// fileVariable is a variable specification in HCL, as "var get -out
// hcl" prints it.
type fileVariable struct {
	Namespace   string     `hcl:"namespace,optional"`
	Path        string     `hcl:"path,optional"`
	ModifyIndex *uint64    `hcl:"modify_index,optional"`
	Items       *fileItems `hcl:"items,block"`
}

type fileItems struct {
	Attrs hcl.Attributes `hcl:",remain"`
}

// parseVariableSpec reads a variable specification: JSON (as the API
// takes it) when in is "json" or the file name ends in .json, else HCL.
// modifyIndex is the spec's, nil when it gives none.
func parseVariableSpec(src []byte, filename, in string) (v *api.Variable, modifyIndex *uint64, err error) {
	if in == "" && strings.HasSuffix(filename, ".json") {
		in = varOutJSON
	}
	switch in {
	case varOutJSON:
		v = new(api.Variable)
		dec := json.NewDecoder(bytes.NewReader(src))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			return nil, nil, fmt.Errorf("parse variable specification %s: %w", filename, err)
		}
		if v.ModifyIndex != 0 {
			index := v.ModifyIndex
			modifyIndex = &index
		}
		return v, modifyIndex, nil
	case "", varOutHCL:
		return parseVariableHCL(src, filename)
	}
	return nil, nil, fmt.Errorf("unknown -in %q: %s or %s", in, varOutHCL, varOutJSON)
}

func parseVariableHCL(src []byte, filename string) (*api.Variable, *uint64, error) {
	file, diags := hclparse.NewParser().ParseHCL(src, filename)
	if diags.HasErrors() {
		return nil, nil, fmt.Errorf("parse variable specification: %w", diags)
	}
	var fv fileVariable
	if diags := gohcl.DecodeBody(file.Body, nil, &fv); diags.HasErrors() {
		return nil, nil, fmt.Errorf("parse variable specification: %w", diags)
	}
	v := &api.Variable{Namespace: fv.Namespace, Path: fv.Path, Items: api.VariableItems{}}
	if fv.Items != nil {
		for name, attr := range fv.Items.Attrs {
			val, diags := attr.Expr.Value(nil)
			if diags.HasErrors() {
				return nil, nil, fmt.Errorf("parse variable specification: item %q: %w", name, diags)
			}
			if val.IsNull() || !val.Type().Equals(cty.String) {
				return nil, nil, fmt.Errorf("parse variable specification: %s: item %q is not a string", attr.Range, name)
			}
			v.Items[name] = val.AsString()
		}
	}
	return v, fv.ModifyIndex, nil
}
