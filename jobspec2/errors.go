package jobspec2

import (
	"cmp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/drover-io/drover/api"
)

// Error carries every problem found while parsing a jobspec. Its text lists
// them one per line, each prefixed with its file:line,column position the
// way hcl formats ranges.
type Error struct {
	Diagnostics hcl.Diagnostics

	// Job is the job without the Nomad blocks and arguments Drover does
	// not support, when those are the only problems: everything else
	// was decoded, so checks of the job as a whole (validation) can
	// still run and report their problems in the same run. Nil
	// otherwise.
	Job *api.Job
}

func (e *Error) Error() string {
	var lines []string
	for _, d := range e.Diagnostics {
		if d.Severity != hcl.DiagError {
			continue
		}
		lines = append(lines, formatDiagnostic(d))
	}
	if len(lines) == 0 {
		return "invalid jobspec"
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes the diagnostics so errors.As(err, &hcl.Diagnostics{}) works.
func (e *Error) Unwrap() error {
	return e.Diagnostics
}

func formatDiagnostic(d *hcl.Diagnostic) string {
	var b strings.Builder
	if d.Subject != nil {
		b.WriteString(d.Subject.String())
		b.WriteString(": ")
	}
	b.WriteString(d.Summary)
	if d.Detail != "" {
		b.WriteString("; ")
		b.WriteString(d.Detail)
	}
	return b.String()
}

// asError returns nil when diags hold no error, otherwise an *Error with the
// diagnostics in source order (positionless ones first).
func asError(diags hcl.Diagnostics) error {
	if !diags.HasErrors() {
		return nil
	}
	sorted := slices.Clone(diags)
	slices.SortStableFunc(sorted, compareDiagnostics)
	return &Error{Diagnostics: sorted}
}

func compareDiagnostics(a, b *hcl.Diagnostic) int {
	switch {
	case a.Subject == nil && b.Subject == nil:
		return 0
	case a.Subject == nil:
		return -1
	case b.Subject == nil:
		return 1
	}
	return cmp.Or(
		cmp.Compare(a.Subject.Filename, b.Subject.Filename),
		cmp.Compare(a.Subject.Start.Byte, b.Subject.Start.Byte),
	)
}

// errorAt builds an error diagnostic for a source range.
func errorAt(rng hcl.Range, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   detail,
		Subject:  rng.Ptr(),
	}
}
