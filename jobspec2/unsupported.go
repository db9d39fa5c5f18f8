package jobspec2

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/drover-io/drover/api/unsupported"
)

// Summaries hcl gives a block or an argument a schema does not list.
const (
	hclUnsupportedBlock    = "Unsupported block type"
	hclUnsupportedArgument = "Unsupported argument"
)

// blockTypeOf names the block type each decoded schema is the schema of.
var blockTypeOf = func() map[*hcl.BodySchema]string {
	out := make(map[*hcl.BodySchema]string, len(decodedBlocks))
	for typ, s := range decodedBlocks {
		out[s] = typ
	}
	return out
}()

// explainNomadOnly rewrites hcl's generic errors for a block or argument
// that body has and schema does not list ("Blocks of type "update" are not
// expected here") when api/unsupported's table knows it as Nomad's: the
// error then says that it is a Nomad block or argument Drover does not
// support yet, why it matters, and where the differences are listed.
func explainNomadOnly(body hcl.Body, schema *hcl.BodySchema, diags hcl.Diagnostics) {
	syn, ok := body.(*hclsyntax.Body)
	parent, known := blockTypeOf[schema]
	if !ok || !known {
		return
	}
	blocks := map[hcl.Pos]string{}
	for _, b := range syn.Blocks {
		blocks[b.TypeRange.Start] = b.Type
	}
	args := map[hcl.Pos]string{}
	for name, a := range syn.Attributes {
		args[a.NameRange.Start] = name
	}
	for _, d := range diags {
		if d.Severity != hcl.DiagError || d.Subject == nil {
			continue
		}
		var name, kind string
		switch d.Summary {
		case hclUnsupportedBlock:
			name, kind = blocks[d.Subject.Start], "block"
		case hclUnsupportedArgument:
			name, kind = args[d.Subject.Start], "argument"
		}
		field, isNomads := unsupported.LookupHCL(parent, name)
		if name == "" || !isNomads {
			continue
		}
		d.Summary = fmt.Sprintf("%q is a Nomad %s that Drover does not support yet", name, kind)
		d.Detail = nomadOnlyDetail(field)
		d.Extra = nomadOnly{}
	}
}

// nomadOnly marks, in a diagnostic's Extra, a Nomad block or argument
// that the parser left out of the job: the rest of the job is whole.
type nomadOnly struct{}

// onlyNomadOnly reports whether every error of diags is a Nomad block or
// argument left out.
func onlyNomadOnly(diags hcl.Diagnostics) bool {
	for _, d := range diags {
		if _, ok := d.Extra.(nomadOnly); d.Severity == hcl.DiagError && !ok {
			return false
		}
	}
	return true
}

// nomadOnlyDetail says why a Nomad block or argument is an error: running
// without it would change what runs, or Drover would ignore it.
func nomadOnlyDetail(f unsupported.Field) string {
	switch {
	case f.Decision == unsupported.Refuse && f.Default != "":
		return fmt.Sprintf("see %s. Ignoring it would change what runs unless it holds only Nomad's defaults (then remove it): %s.", unsupported.DocsPage, f.Reason)
	case f.Decision == unsupported.Refuse:
		return fmt.Sprintf("see %s. Ignoring it would change what runs: %s.", unsupported.DocsPage, f.Reason)
	}
	return fmt.Sprintf("see %s. Drover would ignore it, as it changes nothing the job does (%s): remove it.", unsupported.DocsPage, f.Reason)
}
