package structs

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
)

// validNamespaceName is what a namespace name may be, as in Nomad. It is
// compiled on first use, not by every process of the binary at start-up.
var validNamespaceName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9-]{1,128}$`) })

// Bounds of a namespace.
const (
	maxNamespaceDescriptionLength = 256
	maxNamespaceMeta              = 64
	maxNamespaceDrivers           = 64
)

// Namespace partitions jobs and what derives from them (evaluations,
// allocations). Policies grant capabilities per namespace. The default
// namespace always exists.
type Namespace struct {
	Name         string
	Description  string
	Meta         map[string]string      `json:",omitempty"`
	Capabilities *NamespaceCapabilities `json:",omitempty"`
	// TimeLimits is Drover's: the namespace's bounds on max_run_duration
	// (namespace_time_limits.go). Nil sets none.
	TimeLimits  *NamespaceTimeLimits `json:",omitempty"`
	CreateIndex uint64
	ModifyIndex uint64
}

// NamespaceCapabilities says which task drivers jobs of the namespace may
// use, checked when a job is submitted.
type NamespaceCapabilities struct {
	// EnabledTaskDrivers, when not empty, lists the only drivers allowed.
	EnabledTaskDrivers []string `json:",omitempty"`
	// DisabledTaskDrivers lists drivers that are not allowed.
	DisabledTaskDrivers []string `json:",omitempty"`
}

// DefaultNamespaceObject returns the default namespace as a fresh store
// holds it.
func DefaultNamespaceObject() *Namespace {
	return &Namespace{Name: DefaultNamespace, Description: "Default shared namespace"}
}

// ValidNamespaceName reports whether name may name a namespace.
func ValidNamespaceName(name string) bool { return validNamespaceName().MatchString(name) }

// Validate reports every problem with the namespace.
func (n *Namespace) Validate() error {
	var errs []error
	if !ValidNamespaceName(n.Name) {
		// "invalid name %q." is Nomad's wording, which its clients match.
		errs = append(errs, fmt.Errorf("invalid name %q. A namespace name is 1 to 128 letters, digits and dashes", n.Name))
	}
	if len(n.Description) > maxNamespaceDescriptionLength {
		errs = append(errs, fmt.Errorf("namespace %q: description is longer than %d bytes", n.Name, maxNamespaceDescriptionLength))
	}
	if len(n.Meta) > maxNamespaceMeta {
		errs = append(errs, fmt.Errorf("namespace %q: %d meta keys; the limit is %d", n.Name, len(n.Meta), maxNamespaceMeta))
	}
	if c := n.Capabilities; c != nil {
		if len(c.EnabledTaskDrivers) > maxNamespaceDrivers || len(c.DisabledTaskDrivers) > maxNamespaceDrivers {
			errs = append(errs, fmt.Errorf("namespace %q: more than %d task drivers listed", n.Name, maxNamespaceDrivers))
		}
		for _, d := range c.EnabledTaskDrivers {
			if slices.Contains(c.DisabledTaskDrivers, d) {
				errs = append(errs, fmt.Errorf("namespace %q: task driver %q is both enabled and disabled", n.Name, d))
			}
		}
	}
	errs = append(errs, n.TimeLimits.validate(n.Name)...)
	return errors.Join(errs...)
}

// AllowsDriver reports whether jobs of the namespace may use driver.
func (n *Namespace) AllowsDriver(driver string) bool {
	c := n.Capabilities
	if c == nil {
		return true
	}
	if slices.Contains(c.DisabledTaskDrivers, driver) {
		return false
	}
	return len(c.EnabledTaskDrivers) == 0 || slices.Contains(c.EnabledTaskDrivers, driver)
}
