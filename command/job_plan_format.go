package command

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drover-io/drover/api"
)

// A plan's diff is printed as a tree. Each line starts with a marker saying
// how its item changed ("+" added, "-" deleted, "+/-" edited, nothing when
// unchanged), padded so that the names of sibling lines line up:
//
//	+/- Job: "maxrun"
//	+/- Task Group: "maxrun" (1 in-place update)
//	  +/- MaxRunDuration: "10s" => "30s"
//	      Task: "maxrun"
//	      Task: "maxrun2"
//
// Blocks (restart policies, constraints, driver configs) open with "{" and
// list their fields below. Without verbose, only what was edited shows its
// fields; added and deleted groups and tasks show their header alone.

// diffIndent is how much deeper each level of the tree is indented.
const diffIndent = 2

// durationFields are the fields, outside driver configs, whose values are
// nanoseconds; they print as durations ("10s").
var durationFields = map[string]bool{
	"MaxRunDuration":     true,
	"MaxPendingDuration": true,
	"MaxRunExtension":    true,
	// A task's max_run_warning lead time, flattened as the diff names it.
	"MaxRunWarning.Before": true,
	"ShutdownDelay":        true,
	"KillTimeout":          true,
	"Interval":             true,
	"Delay":                true,
	"MaxDelay":             true,
}

// diffLine is one item of a level of the tree: its marker, its text, and
// the level below it.
type diffLine struct {
	marker   string
	text     string
	children []diffLine
	// closing, when set, is printed after the children, aligned with the
	// text (the "}" of a block).
	closing string
}

// formatJobDiff renders a job diff.
func formatJobDiff(d *api.JobDiff, verbose bool) string {
	var b strings.Builder
	renderLines(&b, jobLines(d, verbose), 0)
	return b.String()
}

// jobLines is the top level: the job's header, its own fields and blocks,
// and its groups.
func jobLines(d *api.JobDiff, verbose bool) []diffLine {
	lines := []diffLine{{marker: diffMarker(d.Type), text: fmt.Sprintf("Job: %q", d.ID)}}
	if d.Type == api.DiffTypeEdited || verbose {
		lines = append(lines, fieldLines(d.Fields, true)...)
		lines = append(lines, objectLines(d.Objects, true)...)
	}
	for _, tg := range d.TaskGroups {
		lines = append(lines, groupLine(tg, verbose))
	}
	return lines
}

func groupLine(tg *api.TaskGroupDiff, verbose bool) diffLine {
	line := diffLine{
		marker: diffMarker(tg.Type),
		text:   fmt.Sprintf("Task Group: %q", tg.Name) + formatUpdates(tg.Updates),
	}
	if tg.Type == api.DiffTypeEdited || verbose {
		line.children = append(line.children, fieldLines(tg.Fields, true)...)
		line.children = append(line.children, objectLines(tg.Objects, true)...)
	}
	for _, task := range tg.Tasks {
		line.children = append(line.children, taskLine(task, verbose))
	}
	return line
}

func taskLine(task *api.TaskDiff, verbose bool) diffLine {
	line := diffLine{
		marker: diffMarker(task.Type),
		text:   fmt.Sprintf("Task: %q", task.Name) + formatAnnotations(task.Annotations),
	}
	if task.Type == api.DiffTypeEdited || verbose {
		line.children = append(line.children, fieldLines(task.Fields, true)...)
		line.children = append(line.children, objectLines(task.Objects, true)...)
	}
	return line
}

// objectLines renders blocks. durations says whether fields named like
// durations hold durations: not within a driver config, whose keys are
// the driver's.
func objectLines(objects []*api.ObjectDiff, durations bool) []diffLine {
	lines := make([]diffLine, 0, len(objects))
	for _, o := range objects {
		inner := durations && o.Name != "Config"
		children := fieldLines(o.Fields, inner)
		children = append(children, objectLines(o.Objects, inner)...)
		lines = append(lines, diffLine{
			marker:   diffMarker(o.Type),
			text:     o.Name + " {",
			children: children,
			closing:  "}",
		})
	}
	return lines
}

// fieldLines renders fields with their values lined up.
func fieldLines(fields []*api.FieldDiff, durations bool) []diffLine {
	width := 0
	for _, f := range fields {
		width = max(width, len(f.Name))
	}
	lines := make([]diffLine, 0, len(fields))
	for _, f := range fields {
		name := fmt.Sprintf("%-*s", width+1, f.Name+":")
		isDuration := durations && durationFields[f.Name]
		old, next := fieldValue(f.Old, isDuration), fieldValue(f.New, isDuration)
		var value string
		switch f.Type {
		case api.DiffTypeAdded:
			value = next
		case api.DiffTypeDeleted:
			value = old
		case api.DiffTypeEdited:
			value = old + " => " + next
		default:
			value = next
		}
		lines = append(lines, diffLine{
			marker: diffMarker(f.Type),
			text:   name + " " + value + formatAnnotations(f.Annotations),
		})
	}
	return lines
}

// fieldValue quotes a value, shown as a duration when it is one.
func fieldValue(v string, duration bool) string {
	if duration {
		if ns, err := strconv.ParseInt(v, 10, 64); err == nil {
			v = exactDuration(time.Duration(ns))
		}
	}
	return strconv.Quote(v)
}

func diffMarker(diffType string) string {
	switch diffType {
	case api.DiffTypeAdded:
		return "+"
	case api.DiffTypeDeleted:
		return "-"
	case api.DiffTypeEdited:
		return "+/-"
	}
	return ""
}

// formatUpdates lists a group's counts of updates by kind, in name order:
// " (1 create, 2 in-place update)".
func formatUpdates(updates map[string]uint64) string {
	if len(updates) == 0 {
		return ""
	}
	parts := make([]string, 0, len(updates))
	for _, kind := range slices.Sorted(maps.Keys(updates)) {
		parts = append(parts, fmt.Sprintf("%d %s", updates[kind], kind))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func formatAnnotations(annotations []string) string {
	if len(annotations) == 0 {
		return ""
	}
	return " (" + strings.Join(annotations, ", ") + ")"
}

// renderLines writes one level of the tree at indent, each marker padded to
// the widest of the level, and the levels below it.
func renderLines(b *strings.Builder, lines []diffLine, indent int) {
	width := 0
	for _, l := range lines {
		if l.marker != "" {
			width = max(width, len(l.marker)+1)
		}
	}
	pad := strings.Repeat(" ", indent)
	for _, l := range lines {
		marker := ""
		if width > 0 {
			marker = fmt.Sprintf("%-*s", width, l.marker)
		}
		fmt.Fprintf(b, "%s%s%s\n", pad, marker, l.text)
		renderLines(b, l.children, indent+diffIndent)
		if l.closing != "" {
			fmt.Fprintf(b, "%s%s%s\n", pad, strings.Repeat(" ", width), l.closing)
		}
	}
}
