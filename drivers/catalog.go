package drivers

import (
	"context"
	"slices"
)

// Catalog is the set of drivers an agent offers, by name.
type Catalog struct {
	byName map[string]Driver
}

// NewCatalog returns a catalog of the given drivers. A later driver with the
// same name replaces an earlier one.
func NewCatalog(drivers ...Driver) *Catalog {
	c := &Catalog{byName: make(map[string]Driver, len(drivers))}
	for _, d := range drivers {
		c.byName[d.Name()] = d
	}
	return c
}

// Lookup returns the driver with the given name.
func (c *Catalog) Lookup(name string) (Driver, bool) {
	d, ok := c.byName[name]
	return d, ok
}

// Names returns the names of the drivers, sorted.
func (c *Catalog) Names() []string {
	names := make([]string, 0, len(c.byName))
	for n := range c.byName {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Fingerprint fingerprints every driver, keyed by driver name.
func (c *Catalog) Fingerprint(ctx context.Context) map[string]*Fingerprint {
	out := make(map[string]*Fingerprint, len(c.byName))
	for name, d := range c.byName {
		out[name] = d.Fingerprint(ctx)
	}
	return out
}

// Shutdown detaches every driver from its tasks (see Driver.Shutdown).
func (c *Catalog) Shutdown() {
	for _, d := range c.byName {
		d.Shutdown()
	}
}
