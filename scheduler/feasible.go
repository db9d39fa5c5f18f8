package scheduler

import (
	"slices"
	"strconv"
	"strings"

	"github.com/drover-io/drover/structs"
)

// reasonMissingDrivers starts the metric reason of a node that lacks a
// driver one of the group's tasks needs; the reason goes on to name the
// drivers it lacks ("missing drivers: docker").
const reasonMissingDrivers = "missing drivers"

// Feasibility cache entries: unknown, feasible, or the index of the
// reason plus feasibilityReasons.
const (
	feasibilityUnknown uint16 = iota
	feasibilityOK
	feasibilityReasons
)

// groupChecker decides which nodes can run a group of one job version. The
// static checks (drivers and node constraints) depend only on the node, so
// their outcome is cached per node for the whole attempt; the distinct
// constraints depend on the other placements and are checked each time.
type groupChecker struct {
	job *structs.Job
	tg  *structs.TaskGroup

	drivers []string
	checks  []*constraintCheck
	// distinctHosts is "" (off), "job" (no two allocations of the job on a
	// node) or "group" (no two of the group).
	distinctHosts string
	distinctProps []*distinctProperty

	ask resources

	// affinity scores nodes by the group's affinities; nil without any.
	affinity *affinityScorer
	// spread scores nodes by the group's spreads; nil without any.
	spread *spreadScorer
	// volumes checks the node's host volumes.
	volumes hostVolumeChecker

	cache   []uint16
	reasons []string
}

const (
	distinctScopeJob   = "job"
	distinctScopeGroup = "group"
)

func newGroupChecker(job *structs.Job, tg *structs.TaskGroup, nodeCount int) *groupChecker {
	c := &groupChecker{job: job, tg: tg, cache: make([]uint16, nodeCount)}
	total, _ := groupAsk(tg)
	c.ask = fromStructs(total)
	for _, task := range tg.Tasks {
		if task.Driver != "" && !slices.Contains(c.drivers, task.Driver) {
			c.drivers = append(c.drivers, task.Driver)
		}
	}
	c.affinity = newAffinityScorer(job, tg)
	c.spread = newSpreadScorer(job, tg)
	c.volumes = newHostVolumeChecker(tg)
	c.addConstraints(job.Constraints, distinctScopeJob)
	c.addConstraints(tg.Constraints, distinctScopeGroup)
	for _, task := range tg.Tasks {
		c.addConstraints(task.Constraints, distinctScopeGroup)
	}
	return c
}

func (c *groupChecker) addConstraints(cs []*structs.Constraint, scope string) {
	for _, con := range cs {
		if con == nil {
			continue
		}
		switch con.Operand {
		case structs.ConstraintDistinctHosts:
			if on, err := strconv.ParseBool(con.RTarget); con.RTarget == "" || (err == nil && on) {
				if c.distinctHosts != distinctScopeJob {
					c.distinctHosts = scope
				}
			}
		case structs.ConstraintDistinctProperty:
			c.distinctProps = append(c.distinctProps, newDistinctProperty(con, scope, c.tg.Name))
		default:
			check, _ := compileConstraint(con)
			c.checks = append(c.checks, check)
		}
	}
}

// static reports whether the node at position pos has the group's drivers
// and meets its node constraints, and otherwise why not.
func (c *groupChecker) static(pos int, node *structs.Node) (ok bool, reason string) {
	switch entry := c.cache[pos]; entry {
	case feasibilityOK:
		return true, ""
	case feasibilityUnknown:
	default:
		return false, c.reasons[entry-feasibilityReasons]
	}
	ok, reason = c.check(node)
	if ok {
		c.cache[pos] = feasibilityOK
		return true, ""
	}
	i := slices.Index(c.reasons, reason)
	if i < 0 {
		i = len(c.reasons)
		c.reasons = append(c.reasons, reason)
	}
	c.cache[pos] = feasibilityReasons + uint16(i)
	return false, reason
}

func (c *groupChecker) check(node *structs.Node) (bool, string) {
	var missing []string
	for _, driver := range c.drivers {
		if !hasDriver(node, driver) {
			missing = append(missing, driver+whyNoDriver(node, driver))
		}
	}
	if len(missing) > 0 {
		return false, reasonMissingDrivers + ": " + strings.Join(missing, ", ")
	}
	if ok, reason := networkModeFeasible(c.tg, node); !ok {
		return false, reason
	}
	for _, check := range c.checks {
		if !check.feasible(node) {
			return false, check.reason
		}
	}
	return c.volumes.static(node)
}

// whyNoDriver is the reason a node gave for not offering a driver it
// knows, such as the kernel feature it lacks (" (the kernel has no
// Landlock LSM ...)"), so that a placement failure names it; "" where
// the node gave none, or the driver is merely disabled.
func whyNoDriver(node *structs.Node, name string) string {
	info, ok := node.Drivers[name]
	if !ok || info == nil {
		return ""
	}
	switch d := info.HealthDescription; d {
	case "", "disabled", "healthy":
		return ""
	default:
		return " (" + d + ")"
	}
}

// hasDriver reports whether a driver is detected and healthy on the node.
// Nodes that fingerprint drivers only as attributes ("driver.raw_exec" =
// "1") are read that way.
func hasDriver(node *structs.Node, name string) bool {
	if info, ok := node.Drivers[name]; ok && info != nil {
		return info.Detected && info.Healthy
	}
	on, err := strconv.ParseBool(node.Attributes["driver."+name])
	return err == nil && on
}
