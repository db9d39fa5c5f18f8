package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// dashboardPath is the Grafana dashboard the docs ship.
var dashboardPath = filepath.Join("..", "website", "content", "docs", "operations", "max_run_duration-dashboard.json")

// grafanaDashboard is what the test reads of a Grafana dashboard: its
// variables and its panels' queries.
type grafanaDashboard struct {
	Templating struct {
		List []struct {
			Name       string
			Type       string
			IncludeAll bool
			AllValue   string
			Definition string
			Current    struct {
				Value any
			}
		}
	}
	Panels []struct {
		Title   string
		Targets []struct {
			RefID string
			Expr  string
		}
	}
}

func readDashboard(t *testing.T) *grafanaDashboard {
	t.Helper()
	b, err := os.ReadFile(dashboardPath)
	must.NoError(t, err)
	var d grafanaDashboard
	must.NoError(t, json.Unmarshal(b, &d))
	must.SliceNotEmpty(t, d.Panels)
	return &d
}

// dashboardRateInterval stands in for Grafana's $__rate_interval: the
// test's series are younger than it, so increase() covers each whole.
const dashboardRateInterval = "5m"

// expand replaces the dashboard's variables in expr as Grafana does with
// every variable at its default: All (the variable's allValue) for a query
// variable, the current value of a custom one, the rate interval for
// $__rate_interval.
func (d *grafanaDashboard) expand(t *testing.T, expr string) string {
	t.Helper()
	values := map[string]string{"__rate_interval": dashboardRateInterval}
	for _, v := range d.Templating.List {
		switch v.Type {
		case "datasource":
		case "query":
			must.True(t, v.IncludeAll && v.AllValue != "", must.Sprintf("variable %q: the test expands All", v.Name))
			values[v.Name] = v.AllValue
		case "custom", "constant", "textbox":
			s, ok := v.Current.Value.(string)
			must.True(t, ok, must.Sprintf("variable %q: a current value the test can read", v.Name))
			values[v.Name] = s
		default:
			t.Fatalf("variable %q: type %q the test does not know", v.Name, v.Type)
		}
	}
	out := regexp.MustCompile(`\$\{(\w+)\}|\$(\w+)`).ReplaceAllStringFunc(expr, func(ref string) string {
		name := strings.Trim(ref, "${}")
		v, ok := values[name]
		must.True(t, ok, must.Sprintf("%q refers to $%s, which the dashboard does not define", expr, name))
		return v
	})
	return out
}

// dashboardJobs are the jobs the test runs for the dashboard to show: three
// allocations that time out, a task that outlives its own limit, a task
// that is warned and leaves, and an allocation still running with a
// deadline.
var dashboardJobs = map[string]string{
	"timeouts": `job "timeouts" {
  type = "batch"
  group "g" {
    count            = 3
    max_run_duration = "4s"
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/sleep" args = ["1000"] }
    }
  }
}`,
	"tasklimit": `job "tasklimit" {
  type = "batch"
  group "g" {
    task "t" {
      driver           = "raw_exec"
      max_run_duration = "4s"
      config { command = "/bin/sleep" args = ["1000"] }
    }
  }
}`,
	"warned": trappingJob("warned", 1, "8s", "4s"),
	"long": `job "long" {
  type = "batch"
  group "g" {
    max_run_duration = "200s"
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/sleep" args = ["1000"] }
    }
  }
}`,
}

// TestMaxRun_Dashboard runs Debian's Prometheus against a dev agent, runs
// the jobs of dashboardJobs, and evaluates every query of the Grafana
// dashboard through Prometheus's HTTP API (its variables' label_values
// too), checking that each returns the series and values the jobs made.
func TestMaxRun_Dashboard(t *testing.T) {
	t.Parallel()
	dash := readDashboard(t)
	a := startDevAgent(t)
	prom := startPrometheus(t, strings.TrimPrefix(a.Addr, "http://"))
	// The series of the jobs exist, at 0, before their first count, for
	// increase() to see it: scraped before any job runs out.
	for _, id := range []string{"timeouts", "tasklimit", "warned", "long"} {
		a.runJob(dashboardJobs[id])
	}
	long := a.waitRunning("long")
	a.waitAllocs("timeouts", 3, "complete", 60*time.Second, clientStatus(api.AllocClientStatusComplete))
	a.waitAllocs("tasklimit", 1, "complete", 60*time.Second, clientStatus(api.AllocClientStatusComplete))
	a.waitAllocs("warned", 1, "complete", 60*time.Second, clientStatus(api.AllocClientStatusComplete))
	node, _, err := a.api.Nodes().Info(long.NodeID, nil)
	must.NoError(t, err)

	// Prometheus has scraped the end of it all.
	a.waitFor("Prometheus to have scraped the final counts", 60*time.Second, func() error {
		for expr, want := range map[string]float64{
			`sum(nomad_nomad_max_run_duration_exceeded)`:                    3,
			`sum(nomad_nomad_max_run_duration_task_exceeded)`:               1,
			`sum(nomad_client_allocs_max_run_duration_warnings)`:            1,
			`sum(nomad_nomad_max_run_duration_running)`:                     1,
			`count(nomad_client_allocs_max_run_duration_remaining_seconds)`: 1,
		} {
			got, err := prom.query(expr)
			if err != nil {
				return err
			}
			if len(got) != 1 || got[0].value != want {
				return fmt.Errorf("%w: %s = %v, want %v", errNotYet, expr, got, want)
			}
		}
		return nil
	})

	checks := dashboardChecks(long, node)
	checked := map[string]bool{}
	for _, panel := range dash.Panels {
		check, ok := checks[panel.Title]
		must.True(t, ok, must.Sprintf("panel %q: the test does not know what it should show", panel.Title))
		checked[panel.Title] = true
		must.SliceNotEmpty(t, panel.Targets, must.Sprintf("panel %q has no query", panel.Title))
		for _, target := range panel.Targets {
			expr := dash.expand(t, target.Expr)
			got, err := prom.query(expr)
			must.NoError(t, err, must.Sprintf("panel %q query %s: %s", panel.Title, target.RefID, expr))
			t.Logf("panel %q %s: %s => %v", panel.Title, target.RefID, expr, got)
			check(t, target.RefID, got)
		}
	}
	for title := range checks {
		must.True(t, checked[title], must.Sprintf("the dashboard has no panel %q", title))
	}

	// The variables' queries list what the jobs made.
	wantValues := map[string][]string{
		"namespace": {"default"},
		"job":       {"long", "tasklimit", "timeouts", "warned"},
	}
	labelValues := regexp.MustCompile(`^label_values\((.+),\s*(\w+)\)$`)
	for _, v := range dash.Templating.List {
		if v.Type != "query" {
			continue
		}
		m := labelValues.FindStringSubmatch(v.Definition)
		must.SliceLen(t, 3, m, must.Sprintf("variable %q: %q is not label_values(selector, label)", v.Name, v.Definition))
		got, err := prom.labelValues(m[2], dash.expand(t, m[1]))
		must.NoError(t, err)
		slices.Sort(got)
		must.Eq(t, wantValues[v.Name], got, must.Sprintf("values of variable %q", v.Name))
	}
}

// sampleCheck checks what one query of a panel returned.
type sampleCheck func(t *testing.T, refID string, got []promSample)

// dashboardChecks are what each panel of the dashboard must show once the
// jobs of dashboardJobs have run, by panel title.
func dashboardChecks(long *api.Allocation, node *api.Node) map[string]sampleCheck {
	one := func(want float64) sampleCheck {
		return func(t *testing.T, _ string, got []promSample) {
			must.SliceLen(t, 1, got)
			must.Eq(t, want, got[0].value)
		}
	}
	// counted checks an increase() over series younger than its window:
	// exactly the series with a count, each of about its count (the
	// extrapolation to the window's end adds a little), the others 0.
	counted := func(byRef map[string]map[string]float64, key func(map[string]string) string) sampleCheck {
		return func(t *testing.T, refID string, got []promSample) {
			want := byRef[refID]
			seen := map[string]float64{}
			for _, s := range got {
				if s.value == 0 {
					continue
				}
				seen[key(s.labels)] = s.value
			}
			must.MapLen(t, len(want), seen, must.Sprintf("%s: series with a count: %v", refID, seen))
			for k, n := range want {
				v, ok := seen[k]
				must.True(t, ok, must.Sprintf("%s: no count for %s in %v", refID, k, seen))
				must.True(t, v >= n && v <= n*1.25, must.Sprintf("%s: %s counted %v, want about %v", refID, k, v, n))
			}
		}
	}
	jobTask := func(l map[string]string) string { return l["namespace"] + "/" + l["job"] + "/" + l["task"] }
	return map[string]sampleCheck{
		"Allocations running with a deadline": one(1),
		"Timeouts since the servers started":  one(3),
		"Allocations near their deadline": func(t *testing.T, _ string, got []promSample) {
			must.SliceLen(t, 1, got)
			must.Eq(t, map[string]string{"namespace": "default", "job": "long"}, got[0].labels)
			must.Eq(t, 1.0, got[0].value)
		},
		"Time left per running allocation": func(t *testing.T, _ string, got []promSample) {
			must.SliceLen(t, 1, got)
			must.Eq(t, map[string]string{"namespace": "default", "job": "long", "task_group": "g", "alloc_id": long.ID}, got[0].labels)
			must.True(t, got[0].value > 0 && got[0].value <= 200, must.Sprintf("time left %v", got[0].value))
		},
		"Timeouts per job": counted(map[string]map[string]float64{
			"A": {"default/timeouts/": 3},
			"B": {"default/tasklimit/t": 1},
		}, jobTask),
		"Warnings sent": counted(map[string]map[string]float64{"A": {"default/warned/t": 1}}, jobTask),
		"Timeouts per node": counted(map[string]map[string]float64{"A": {node.Datacenter + "/" + node.ID: 3}},
			func(l map[string]string) string { return l["datacenter"] + "/" + l["node_id"] }),
	}
}
