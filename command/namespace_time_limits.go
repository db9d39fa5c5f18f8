package command

import (
	"flag"
	"fmt"
	"time"

	"github.com/drover-io/drover/api"
)

// The namespace's time limits (Drover's), as the specification file's
// time_limits block and namespace apply's flags give them.

type fileNamespaceTimeLimits struct {
	MaxRunDurationDefault     string `hcl:"max_run_duration_default,optional"`
	MaxRunDurationMax         string `hcl:"max_run_duration_max,optional"`
	AllocDeadlineExtensionMax string `hcl:"alloc_deadline_extension_max,optional"`
}

// timeLimits converts the block, naming the attribute of a duration that
// does not parse.
func (f *fileNamespaceTimeLimits) timeLimits() (*api.NamespaceTimeLimits, error) {
	if f == nil {
		return nil, nil
	}
	var l api.NamespaceTimeLimits
	for _, a := range []struct {
		name, value string
		into        *time.Duration
	}{
		{"max_run_duration_default", f.MaxRunDurationDefault, &l.MaxRunDurationDefault},
		{"max_run_duration_max", f.MaxRunDurationMax, &l.MaxRunDurationMax},
		{"alloc_deadline_extension_max", f.AllocDeadlineExtensionMax, &l.AllocDeadlineExtensionMax},
	} {
		if a.value == "" {
			continue
		}
		d, err := time.ParseDuration(a.value)
		if err != nil {
			return nil, fmt.Errorf("parse namespace specification: time_limits: %s must be a duration such as \"1h\": %q is not one", a.name, a.value)
		}
		*a.into = d
	}
	return &l, nil
}

// timeLimitFlags are namespace apply's flags for the time limits; each
// one given replaces that limit ("0" removes it), the others stay.
type timeLimitFlags struct {
	def, ceiling, extension optionalDuration
}

func (f *timeLimitFlags) register(flags *flag.FlagSet) {
	flags.Var(&f.def, "max-run-duration-default", "")
	flags.Var(&f.ceiling, "max-run-duration-max", "")
	flags.Var(&f.extension, "alloc-deadline-extension-max", "")
}

// apply sets the limits given on ns.
func (f *timeLimitFlags) apply(ns *api.Namespace) {
	if !f.def.set && !f.ceiling.set && !f.extension.set {
		return
	}
	l := api.NamespaceTimeLimits{}
	if ns.TimeLimits != nil {
		l = *ns.TimeLimits
	}
	f.def.into(&l.MaxRunDurationDefault)
	f.ceiling.into(&l.MaxRunDurationMax)
	f.extension.into(&l.AllocDeadlineExtensionMax)
	ns.TimeLimits = &l
}

// optionalDuration is a duration flag that knows whether it was given.
type optionalDuration struct {
	d   time.Duration
	set bool
}

func (o *optionalDuration) String() string { return o.d.String() }

func (o *optionalDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as \"1h\"", s)
	}
	if d < 0 {
		return fmt.Errorf("%s must not be negative", d)
	}
	o.d, o.set = d, true
	return nil
}

func (o *optionalDuration) into(d *time.Duration) {
	if o.set {
		*d = o.d
	}
}

// timeLimitRows are namespace status's rows for the limits that are set.
func timeLimitRows(l *api.NamespaceTimeLimits) []string {
	if l == nil {
		return nil
	}
	var rows []string
	for _, r := range []struct {
		name string
		d    time.Duration
	}{
		{"Default max_run_duration", l.MaxRunDurationDefault},
		{"Ceiling of max_run_duration", l.MaxRunDurationMax},
		{"Ceiling of alloc deadline extension", l.AllocDeadlineExtensionMax},
	} {
		if r.d > 0 {
			rows = append(rows, r.name+"|"+r.d.String())
		}
	}
	return rows
}
