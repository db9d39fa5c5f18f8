package jobspec2

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/drover-io/drover/api/unsupported"
	"github.com/drover-io/drover/drivers/configschema"
	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

// checkDriver, when the parse checks drivers, refuses, at the `driver` argument, a driver Drover does not
// have, and holds the task's config block to its driver's schema
// (drivers/configschema, the definition the drivers read their config
// with), each problem at the key it concerns. A task whose config is
// wrong would otherwise be accepted and fail only on a client.
func (d *decoder) checkDriver(task string, driverAttr *hcl.Attribute, driver string, config *hcl.Block, values map[string]any) {
	if !d.checkDrivers || driverAttr == nil || driver == "" {
		return // "Missing driver" is the validation's
	}
	schema, known := configschema.Lookup(driver)
	if !known {
		d.add(unknownDriver(driverAttr.Expr.Range(), task, driver))
		return
	}
	if config == nil {
		values = nil
	}
	for _, p := range schema.CheckSubmitted(values) {
		rng := driverAttr.Range
		if config != nil {
			rng = configKeyRange(config, p.Path)
		}
		d.add(errorAt(rng, "Invalid "+driver+" config",
			fmt.Sprintf("Task %q: %s.", task, p.Err)))
	}
}

// unknownDriver says that no client of Drover's can run the driver; for
// one of Nomad's it says so and points at the differences page.
func unknownDriver(rng hcl.Range, task, driver string) *hcl.Diagnostic {
	have := configschema.UserDrivers()
	for _, nd := range unsupported.Drivers() {
		if nd.Name == driver {
			return errorAt(rng, fmt.Sprintf("%q is a Nomad driver that Drover does not support yet", driver),
				fmt.Sprintf("%s (%s); see %s. Task %q: Drover's drivers are %s.", driver, nd.What, unsupported.DocsPage, task, strings.Join(have, ", ")))
		}
	}
	detail := fmt.Sprintf("Task %q: Drover's drivers are %s.", task, strings.Join(have, ", "))
	if guess := taskconfig.Closest(driver, have); guess != "" {
		detail = fmt.Sprintf("Task %q: did you mean %q? Drover's drivers are %s.", task, guess, strings.Join(have, ", "))
	}
	return errorAt(rng, fmt.Sprintf("Unknown driver %q", driver), detail)
}

// configKeyRange is where the config key at path is written: its name,
// or the block it is missing from.
func configKeyRange(config *hcl.Block, path []string) hcl.Range {
	rng := config.DefRange
	body, ok := config.Body.(*hclsyntax.Body)
	for _, key := range path {
		if !ok {
			break
		}
		if attr, isAttr := body.Attributes[key]; isAttr {
			return attr.NameRange
		}
		var next *hclsyntax.Block
		for _, b := range body.Blocks {
			if b.Type == key {
				next = b
				break
			}
		}
		if next == nil {
			break
		}
		rng, body = next.TypeRange, next.Body
	}
	return rng
}
