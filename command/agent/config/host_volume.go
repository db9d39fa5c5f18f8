package config

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"

	"github.com/drover-io/drover/structs"
)

// fileHostVolume is one of the client block's host_volume blocks: a
// directory of the machine the operator offers to jobs by name.
//
//	client {
//	  host_volume "data" {
//	    path      = "/srv/data"
//	    read_only = true
//	  }
//	}
type fileHostVolume struct {
	Name     string         `hcl:"name,label"`
	Path     *hcl.Attribute `hcl:"path,optional"`
	ReadOnly *bool          `hcl:"read_only,optional"`
	// Body is the rest, which must be empty: it gives the block's
	// position, and names what Drover does not know.
	Body hcl.Body `hcl:",remain"`
}

// applyHostVolumes adds the file's host volumes to c; a later file's
// volume replaces an earlier one of the same name. The path must be an
// existing directory, named by an absolute path: the operator's mistake
// is reported at start, not when a task first mounts the volume.
func applyHostVolumes(c *ClientConfig, vs []*fileHostVolume) error {
	seen := map[string]bool{}
	for _, v := range vs {
		where := fmt.Sprintf("%s: client host_volume %q", rangePos(v.Body.MissingItemRange()), v.Name)
		if v.Name == "" {
			return fmt.Errorf("%s: the name is empty", where)
		}
		if seen[v.Name] {
			return fmt.Errorf("%s: defined more than once", where)
		}
		seen[v.Name] = true
		if _, diags := v.Body.Content(&hcl.BodySchema{}); diags.HasErrors() {
			return fmt.Errorf("%s: %w", where, diags)
		}
		path, err := hostVolumePath(where, v.Path)
		if err != nil {
			return err
		}
		if c.HostVolumes == nil {
			c.HostVolumes = map[string]*structs.ClientHostVolume{}
		}
		c.HostVolumes[v.Name] = &structs.ClientHostVolume{Path: path, ReadOnly: v.ReadOnly != nil && *v.ReadOnly}
	}
	return nil
}

func hostVolumePath(where string, attr *hcl.Attribute) (string, error) {
	if attr == nil {
		return "", fmt.Errorf("%s: path is required", where)
	}
	var path string
	if diags := gohcl.DecodeExpression(attr.Expr, nil, &path); diags.HasErrors() {
		return "", fmt.Errorf("%s: path: %w", where, diags)
	}
	where = fmt.Sprintf("%s: client host_volume path = %q", rangePos(attr.Expr.Range()), path)
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%s: not an absolute path", where)
	}
	fi, err := os.Stat(path)
	switch {
	case os.IsNotExist(err):
		return "", fmt.Errorf("%s: no such directory", where)
	case err != nil:
		return "", fmt.Errorf("%s: %w", where, err)
	case !fi.IsDir():
		return "", fmt.Errorf("%s: not a directory", where)
	}
	return filepath.Clean(path), nil
}
