package command

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/drover-io/drover/api"
)

// groupFailure is why the allocations of one task group could not be
// placed.
type groupFailure struct {
	// Header names the group and how many allocations failed:
	// Task Group "web" (failed to place 2 allocations):
	Header string
	// Reasons are sentences such as "Resources exhausted on 3 nodes".
	Reasons []string
}

// placementFailures explains, group by group in name order, why the
// scheduler could not place allocations; verbose adds the nodes' scores.
func placementFailures(failed map[string]*api.AllocationMetric, verbose bool) []groupFailure {
	var out []groupFailure
	for _, group := range slices.Sorted(maps.Keys(failed)) {
		metric := failed[group]
		n := 1
		if metric != nil {
			n += metric.CoalescedFailures
		}
		out = append(out, groupFailure{
			Header:  fmt.Sprintf("Task Group %q (failed to place %d %s):", group, n, plural(n, "allocation")),
			Reasons: placementReasons(metric, verbose),
		})
	}
	return out
}

// formatPlacementFailures renders placementFailures as a block: each header
// on its own line, its reasons below it as "  * " bullets.
func formatPlacementFailures(failed map[string]*api.AllocationMetric, verbose bool) string {
	var lines []string
	for _, f := range placementFailures(failed, verbose) {
		lines = append(lines, f.Header)
		for _, r := range f.Reasons {
			lines = append(lines, "  * "+r)
		}
	}
	return strings.Join(lines, "\n")
}

// placementReasons reads a placement attempt's metrics as sentences, the
// most fundamental problem first.
func placementReasons(m *api.AllocationMetric, verbose bool) []string {
	if m == nil {
		return nil
	}
	if m.GivenUp != "" {
		// Not a matter of nodes: the placement could not run in time
		// (a spent job budget, a deadline it cannot finish by).
		return []string{"Not started, given up: " + m.GivenUp}
	}
	var out []string
	if m.NodesEvaluated == 0 {
		out = append(out, "No nodes were eligible for evaluation")
	}
	for _, dc := range slices.Sorted(maps.Keys(m.NodesAvailable)) {
		if m.NodesAvailable[dc] == 0 {
			out = append(out, fmt.Sprintf("No nodes are available in datacenter %q", dc))
		}
	}
	for _, class := range slices.Sorted(maps.Keys(m.ClassFiltered)) {
		out = append(out, fmt.Sprintf("Class %q: %d %s excluded by filter", class, m.ClassFiltered[class], plural(m.ClassFiltered[class], "node")))
	}
	for _, c := range slices.Sorted(maps.Keys(m.ConstraintFiltered)) {
		n := m.ConstraintFiltered[c]
		if drivers, ok := strings.CutPrefix(c, "missing drivers: "); ok {
			out = append(out, fmt.Sprintf("Constraint %q: %s not found on %d %s", "missing drivers", drivers, n, plural(n, "node")))
			continue
		}
		out = append(out, fmt.Sprintf("Constraint %q: %d %s excluded by filter", c, n, plural(n, "node")))
	}
	if m.NodesExhausted > 0 {
		out = append(out, fmt.Sprintf("Resources exhausted on %d %s", m.NodesExhausted, plural(m.NodesExhausted, "node")))
	}
	for _, class := range slices.Sorted(maps.Keys(m.ClassExhausted)) {
		out = append(out, fmt.Sprintf("Class %q exhausted on %d %s", class, m.ClassExhausted[class], plural(m.ClassExhausted[class], "node")))
	}
	for _, dim := range slices.Sorted(maps.Keys(m.DimensionExhausted)) {
		out = append(out, fmt.Sprintf("Dimension %q exhausted on %d %s", dim, m.DimensionExhausted[dim], plural(m.DimensionExhausted[dim], "node")))
	}
	for _, q := range m.QuotaExhausted {
		out = append(out, fmt.Sprintf("Quota limit hit %q", q))
	}
	if verbose {
		for _, node := range slices.Sorted(maps.Keys(m.Scores)) {
			out = append(out, fmt.Sprintf("Score %q = %f", node, m.Scores[node]))
		}
	}
	return out
}

// plural returns word, with an "s" unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
