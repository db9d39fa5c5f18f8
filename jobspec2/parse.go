package jobspec2

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/drover-io/drover/api"
)

// stdinName is the file name positions carry for a jobspec read from stdin.
const stdinName = "<stdin>"

// ParseConfig says what to parse and with which variables.
type ParseConfig struct {
	Path       string   // file name used in positions ("-" or "" means stdin / <stdin>)
	Body       []byte   // the HCL source; if nil and Path is a real file, read Path
	ArgVars    []string // "-var" values, each "name=value"
	VarFiles   []string // "-var-file" paths (HCL files of name = value)
	VarContent string   // variable file content given directly (used by POST /v1/jobs/parse "Variables")
	Envs       []string // environment, "K=V"; NOMAD_VAR_<name> (and DROVER_VAR_<name>) set variables
	Strict     bool     // error on variables given but not declared (like Nomad: default true from the CLI)

	// AllowFS enables the functions that read local files (file,
	// filebase64, fileexists, fileset, abspath, ...), relative to the
	// jobspec's directory. Leave it false when
	// parsing specs from untrusted sources, such as an HTTP request.
	AllowFS bool

	// CheckDrivers refuses a task whose driver Drover does not have, and
	// holds each task's config to its driver's schema, every problem at
	// the key it concerns (job validate, plan and run do).
	CheckDrivers bool

	// Limits bound the parse; zero fields take DefaultLimits.
	Limits Limits
}

// ParseWithConfig parses a jobspec with the variables cfg provides. A
// returned error is an *Error listing every problem found, unless reading a
// file failed.
func ParseWithConfig(cfg *ParseConfig) (*api.Job, error) {
	return ParseWithContext(context.Background(), cfg)
}

// ParseWithContext is ParseWithConfig that stops evaluating when ctx ends,
// as when the client of an HTTP request goes away. Every source is held
// to cfg.Limits before it is parsed: its size and nesting first, then the
// work and the time its evaluation takes.
func ParseWithContext(ctx context.Context, cfg *ParseConfig) (*api.Job, error) {
	if cfg == nil {
		return nil, errors.New("parse jobspec: no configuration given")
	}
	limits := cfg.Limits.withDefaults()
	name := displayName(cfg.Path)
	src := cfg.Body
	if src == nil && name != stdinName {
		var err error
		if src, err = readSource(cfg.Path, limits.MaxSize); err != nil {
			return nil, fmt.Errorf("read jobspec: %w", err)
		}
	}
	if diags := limits.checkSource(src, name, ConfigSource); diags.HasErrors() {
		return nil, asError(diags)
	}

	file, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
	var layout *layoutFix
	if diags.HasErrors() {
		// Retry with the line breaks HCL wants; if that does not help,
		// the first errors are the ones that describe what the user wrote.
		if layout = relaxLayout(src, name); layout == nil {
			return nil, asError(diags)
		}
		if limits.checkSource(layout.src, name, ConfigSource).HasErrors() {
			return nil, asError(diags)
		}
		relaid, relaidDiags := hclsyntax.ParseConfig(layout.src, name, hcl.InitialPos)
		if relaidDiags.HasErrors() {
			return nil, asError(diags)
		}
		file, src = relaid, layout.src
	}
	ctx, cancel := context.WithTimeoutCause(ctx, limits.EvalTimeout, errEvalTimeout)
	defer cancel()
	p := &parser{cfg: cfg, name: name, src: src, layout: layout, limits: limits, budget: newBudget(ctx, limits)}
	job := p.parse(file.Body.(*hclsyntax.Body))
	if d := p.budget.diagnostic(file.Body.(*hclsyntax.Body).SrcRange); d != nil {
		p.diags = append(p.diags, d)
	}
	layout.restore(p.diags, name)
	if err := asError(p.diags); err != nil {
		if job != nil && onlyNomadOnly(p.diags) {
			err.(*Error).Job = job
		}
		return nil, err
	}
	return job, nil
}

// readSource reads a file of at most max bytes; it reads no more than one
// byte past max of a larger one, or of a file that never ends.
func readSource(path string, max int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > max {
		return nil, fmt.Errorf("%s is more than %d bytes, the limit (limits.hcl_max_size)", path, max)
	}
	return data, nil
}

func displayName(path string) string {
	if path == "" || path == "-" {
		return stdinName
	}
	return path
}

// parser holds the state of one ParseWithConfig call.
type parser struct {
	cfg    *ParseConfig
	name   string
	src    []byte
	layout *layoutFix
	limits Limits
	budget *budget
	diags  hcl.Diagnostics
}

var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "job", LabelNames: []string{"id"}},
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "variables"},
		{Type: "locals"},
	},
}

func (p *parser) parse(body *hclsyntax.Body) *api.Job {
	content, diags := body.Content(rootSchema)
	p.diags = append(p.diags, diags...)

	jobBlock := p.jobBlock(body, content)

	functions := guardFunctions(functionTable(p.baseDir(), p.cfg.AllowFS, p.limits.MaxEvalWork), p.budget)
	vars, diags := collectVariables(content.Blocks, p.cfg, functions, p.layout, p.budget)
	p.diags = append(p.diags, diags...)

	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": vars},
		Functions: functions,
	}
	// The decoder continues the parser's diagnostics, so it knows when
	// earlier errors explain an unknown value.
	d := &decoder{refs: newRefKeeper(p.src, "var", "local"), src: p.src, ctx: ctx, layout: p.layout, budget: p.budget, diags: p.diags, checkDrivers: p.cfg.CheckDrivers}
	ctx.Variables["local"] = d.locals(blocksOfType(content, "locals"))

	var job *api.Job
	if jobBlock != nil {
		job = d.job(jobBlock)
	}
	p.diags = d.diags
	return job
}

// jobBlock returns the jobspec's only job block, reporting none or several.
func (p *parser) jobBlock(body *hclsyntax.Body, content *hcl.BodyContent) *hcl.Block {
	jobs := blocksOfType(content, "job")
	if len(jobs) == 0 {
		if !hasBlockNamed(body, "job") {
			rng := body.SrcRange
			p.diags = append(p.diags, errorAt(hcl.Range{Filename: rng.Filename, Start: rng.Start, End: rng.Start},
				"Missing job block", "A jobspec must contain exactly one job block; none was found."))
		}
		return nil
	}
	for _, extra := range jobs[1:] {
		p.diags = append(p.diags, errorAt(extra.DefRange, "Duplicate job block",
			fmt.Sprintf("A jobspec must contain exactly one job block; another was defined at %s.", p.layout.rng(jobs[0].DefRange))))
	}
	return jobs[0]
}

// hasBlockNamed reports whether body has a block of type typ, even one that
// the schema rejected (for a missing label, say) with an error of its own.
func hasBlockNamed(body *hclsyntax.Body, typ string) bool {
	for _, b := range body.Blocks {
		if b.Type == typ {
			return true
		}
	}
	return false
}

// baseDir is where file() resolves relative paths: the jobspec's own
// directory, or the working directory for stdin.
func (p *parser) baseDir() string {
	if p.name == stdinName {
		return "."
	}
	return filepath.Dir(p.cfg.Path)
}
