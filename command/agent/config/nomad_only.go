package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/drover-io/drover/api/unsupported"
)

// A Nomad configuration file starts Drover unchanged: the Nomad settings
// Drover has no use for (unsupported.AgentSettings: Serf ports, Vault,
// update checks, ...) are accepted and named in a warning, as any key
// neither knows is refused with its position.

// readNomadOnly takes the Nomad settings Drover has no use for out of the
// file's and its blocks' Rest, and fails on anything else there.
func (fc *fileConfig) readNomadOnly() error {
	var err error
	read := func(rest hcl.Body, block string) {
		if err != nil || rest == nil {
			return
		}
		var names []string
		names, rest, err = nomadOnly(rest, block)
		if err == nil {
			err = noneLeft(rest)
		}
		fc.ignored = append(fc.ignored, names...)
	}
	read(fc.Rest, "")
	if p := fc.Ports; p != nil {
		read(p.Rest, "ports")
	}
	if a := fc.Addresses; a != nil {
		read(a.Rest, "addresses")
	}
	if a := fc.Advertise; a != nil {
		read(a.Rest, "advertise")
	}
	if s := fc.Server; s != nil {
		read(s.Rest, "server")
	}
	if c := fc.Client; c != nil && c.Rest != nil && err == nil {
		// What is left is meta and options, which applyTo decodes.
		var names []string
		names, c.settings, err = nomadOnly(c.Rest, "client")
		fc.ignored = append(fc.ignored, names...)
	}
	return err
}

// nomadOnly reads from body the Nomad settings of block that Drover has
// no use for, in either form a Nomad file may write them (an argument or
// a block), and returns their paths and the rest of body.
func nomadOnly(body hcl.Body, block string) ([]string, hcl.Body, error) {
	_, native := body.(*hclsyntax.Body)
	schema := &hcl.BodySchema{}
	for _, s := range unsupported.AgentSettings() {
		in, name := s.Block()
		if in != block {
			continue
		}
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: name})
		// In JSON a block is an object, which reads as an argument too;
		// only HCL's syntax tells the two apart.
		if native {
			schema.Blocks = append(schema.Blocks, hcl.BlockHeaderSchema{Type: name, LabelNames: make([]string, s.Labels)})
		}
	}
	content, rest, diags := body.PartialContent(schema)
	if diags.HasErrors() {
		return nil, nil, fmt.Errorf("parse config: %w", diags)
	}
	var paths []string
	seen := map[string]bool{}
	add := func(name string) {
		path := name
		if block != "" {
			path = block + "." + name
		}
		if !seen[path] {
			seen[path] = true
			paths = append(paths, path)
		}
	}
	for _, s := range schema.Attributes {
		if content.Attributes[s.Name] != nil {
			add(s.Name)
		}
	}
	for _, b := range content.Blocks {
		add(b.Type)
	}
	return paths, rest, nil
}

// noneLeft fails, naming it and its position, on anything in body.
func noneLeft(body hcl.Body) error {
	if _, diags := body.Content(&hcl.BodySchema{}); diags.HasErrors() {
		return fmt.Errorf("parse config: %w", diags)
	}
	return nil
}

// enable applies a file's `enabled` of the server or client block as
// Nomad merges it: true enables, and false cannot disable what -dev or an
// earlier file enabled. That false is noted, never dropped silently.
func (fc *fileConfig) enable(dst *bool, v *bool, block string) {
	switch {
	case v == nil:
	case *v:
		*dst = true
	case *dst:
		fc.notes = append(fc.notes, fmt.Sprintf("%s.enabled = false leaves the %s enabled: as in Nomad, false does not disable what -dev or an earlier file enabled", block, block))
	}
}

// warnings are what the agent logs about the file once it has a logger:
// the Nomad settings it ignores and the notes on its values.
func (fc *fileConfig) warnings(name string) []string {
	var out []string
	if len(fc.ignored) > 0 {
		out = append(out, fmt.Sprintf("%s: ignoring Nomad settings Drover has no use for: %s (see %s)", name, strings.Join(fc.ignored, ", "), unsupported.DocsPage))
	}
	for _, n := range fc.notes {
		out = append(out, fmt.Sprintf("%s: %s", name, n))
	}
	return out
}
