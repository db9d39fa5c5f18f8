package website

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/cli"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api/unsupported"
	"github.com/drover-io/drover/command/agent"
	agentconfig "github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/structs"
)

// The README's claims that no command of it shows are held here; its
// console blocks run in e2e's TestREADME.

func readREADME(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	must.NoError(t, err)
	return string(data)
}

// readmeIntro is the README's first paragraph, which says what Drover is.
func readmeIntro(t *testing.T) string {
	t.Helper()
	readme := readREADME(t)
	start := strings.Index(readme, "Drover is ")
	must.True(t, start >= 0, must.Sprint("the README does not begin by saying what Drover is"))
	end := strings.Index(readme[start:], "\n\n")
	return readme[start : start+end]
}

// The README names Drover's drivers, all of them, and no other; it says
// that the jobspec and the API are a subset and links the page that says
// what is missing.
func TestREADME_WhatDroverIs(t *testing.T) {
	intro := readmeIntro(t)
	sentence := regexp.MustCompile(`(?s)through its (.*?) and the CLI`).FindStringSubmatch(intro)
	must.SliceLen(t, 2, sentence, must.Sprint("the README's first paragraph does not say through which drivers the client runs work"))
	var named []string
	for _, m := range codeSpanPattern.FindAllStringSubmatch(sentence[1], -1) {
		named = append(named, m[1])
	}
	slices.Sort(named)
	must.Eq(t, structs.Drivers, named, must.Sprint("the README's drivers are not structs.Drivers"))
	for _, d := range unsupported.Drivers() {
		must.SliceNotContains(t, named, d.Name)
	}

	flat := strings.Join(strings.Fields(intro), " ")
	must.StrContains(t, flat, "reads a subset of Nomad's HCL2 jobspec")
	must.StrContains(t, flat, "a subset of Nomad's HTTP API")
	must.StrContains(t, intro, "("+unsupported.DocsPage+")", must.Sprint("the README's first paragraph does not link the Differences page"))
}

// The README says which agents serve Prometheus' format: those with
// prometheus_metrics = true, as a dev agent has and others have not.
func TestREADME_PrometheusClaim(t *testing.T) {
	must.False(t, agentconfig.DefaultConfig().Telemetry.PrometheusMetrics, must.Sprint("an agent serves Prometheus' format by default: the README says it needs prometheus_metrics"))
	must.True(t, agentconfig.DevConfig().Telemetry.PrometheusMetrics, must.Sprint("a dev agent does not serve Prometheus' format: the README says it does"))
	flat := strings.Join(strings.Fields(readREADME(t)), " ")
	must.StrContains(t, flat, "`/v1/metrics?format=prometheus` when its `telemetry` block says `prometheus_metrics = true`, as a dev agent's does")
	must.StrNotContains(t, flat, "Every agent serves its metrics at `/v1/metrics` (JSON) and")
}

// The agent flags the README shows for picking an address exist.
func TestREADME_AgentFlags(t *testing.T) {
	help := agent.NewCommand(cli.NewMockUi()).Help()
	m := regexp.MustCompile(`(?m)^make dev ARGS="([^"]*)"$`).FindStringSubmatch(readREADME(t))
	must.SliceLen(t, 2, m, must.Sprint(`the README shows no make dev ARGS="..." line`))
	for _, f := range strings.Fields(m[1]) {
		if strings.HasPrefix(f, "-") {
			must.StrContains(t, help, "\n  "+f+"=", must.Sprintf("drover agent has no flag %s, which the README shows", f))
		}
	}
	for _, f := range []string{"-bind", "-http-port", "-rpc-port"} {
		must.StrContains(t, help, "\n  "+f+"=")
		must.StrContains(t, readREADME(t), "`"+f+"`", must.Sprintf("the README does not say how to pick an address with %s", f))
	}
}

// The README and the getting-started page say once where the agent is by
// default, and every command of theirs that reaches it, curl's too, does
// so through $DROVER_ADDR: they also show how to run the agent elsewhere,
// where a literal address would not follow.
func TestAgentAddress_DROVER_ADDR(t *testing.T) {
	const defaultURL = "http://127.0.0.1:4646"
	for name, text := range map[string]string{
		"README.md":          readREADME(t),
		"getting-started.md": readDoc(t, "getting-started.md"),
	} {
		must.Eq(t, 1, strings.Count(text, defaultURL), must.Sprintf("%s states the default address %s other than once", name, defaultURL))
		var curls int
		for line := range strings.Lines(text) {
			if !strings.Contains(line, "curl ") {
				continue
			}
			curls++
			must.StrContains(t, line, `"$DROVER_ADDR/`, must.Sprintf("%s: a curl line that does not use $DROVER_ADDR: %s", name, line))
		}
		must.Positive(t, curls, must.Sprintf("%s shows no curl line", name))
	}
}
