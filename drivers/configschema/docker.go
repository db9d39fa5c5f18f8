package configschema

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/distribution/reference"
	units "github.com/docker/go-units"

	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

// Docker is the docker driver's config, with Nomad's key names.
var Docker = &taskconfig.Schema{
	Driver: "docker",
	Keys: slices.Concat([]taskconfig.Key{
		{Name: "image", Type: taskconfig.String, Required: true, Check: checkImage},
		{Name: "force_pull", Type: taskconfig.Bool},
		{Name: "image_pull_timeout", Type: taskconfig.Duration, Check: positive},
		{Name: "auth", Type: taskconfig.Block, Keys: []taskconfig.Key{
			{Name: "username", Type: taskconfig.String},
			{Name: "password", Type: taskconfig.String},
			{Name: "server_address", Type: taskconfig.String},
		}},
		{Name: "command", Type: taskconfig.String},
		{Name: "args", Type: taskconfig.StringList},
		{Name: "entrypoint", Type: taskconfig.StringList},
		{Name: "work_dir", Type: taskconfig.String, Check: containerPath},
		{Name: "labels", Type: taskconfig.StringMap},
		{Name: "network_mode", Type: taskconfig.String},
		{Name: "ports", Type: taskconfig.StringList},
		{Name: "port_map", Type: taskconfig.StringMap, Check: checkPortMap},
		{Name: "volumes", Type: taskconfig.StringList, Check: checkVolumes},
		{Name: "privileged", Type: taskconfig.Bool},
		{Name: "cap_add", Type: taskconfig.StringList},
		{Name: "cap_drop", Type: taskconfig.StringList},
		{Name: "ulimit", Type: taskconfig.StringMap, Check: checkUlimits},
		{Name: "shm_size", Type: taskconfig.Int, Check: taskconfig.NonNegative},
		{Name: "init", Type: taskconfig.Bool},
	}, dockerContainerKeys),
}

// NormalizeImage returns the full reference of a docker image:
// "redis" is docker.io/library/redis:latest.
func NormalizeImage(s string) (string, error) {
	named, err := reference.ParseNormalizedNamed(s)
	if err != nil {
		return "", fmt.Errorf("%q is not a valid image reference: %w", s, err)
	}
	return reference.TagNameOnly(named).String(), nil
}

func checkImage(v any) error {
	if v.(string) == "" {
		return errors.New("must not be empty")
	}
	_, err := NormalizeImage(v.(string))
	return err
}

func positive(v any) error {
	if v.(time.Duration) <= 0 {
		return errors.New("must be positive")
	}
	return nil
}

// containerPath checks a path inside the container, which may be empty
// (not set).
func containerPath(v any) error {
	if s := v.(string); s != "" && !strings.HasPrefix(s, "/") {
		return fmt.Errorf("%q is not an absolute path", s)
	}
	return nil
}

// DockerVolume is one `volumes` entry, "source:target[:ro|rw]".
type DockerVolume struct {
	Source, Target string
	ReadOnly       bool
}

// ParseDockerVolume parses one `volumes` entry.
func ParseDockerVolume(v string) (DockerVolume, error) {
	parts := strings.Split(v, ":")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return DockerVolume{}, fmt.Errorf("%q is not source:target or source:target:mode", v)
	}
	spec := DockerVolume{Source: parts[0], Target: parts[1]}
	if !strings.HasPrefix(spec.Target, "/") {
		return DockerVolume{}, fmt.Errorf("%q: target %q is not an absolute path", v, spec.Target)
	}
	if len(parts) == 3 {
		switch parts[2] {
		case "ro":
			spec.ReadOnly = true
		case "rw":
		default:
			return DockerVolume{}, fmt.Errorf("%q: mode %q is neither ro nor rw", v, parts[2])
		}
	}
	return spec, nil
}

// ParseDockerPortMap reads `port_map`, Nomad's older form of a port's
// `to`: each port label of the group's network, the port in the
// container its host port forwards to.
func ParseDockerPortMap(m map[string]string) (map[string]int, error) {
	out := make(map[string]int, len(m))
	var errs []error
	for _, label := range slices.Sorted(maps.Keys(m)) {
		n, err := strconv.Atoi(m[label])
		switch {
		case label == "":
			errs = append(errs, errors.New("a port label must not be empty"))
		case err != nil || n < 1 || n > 65535:
			errs = append(errs, fmt.Errorf("port %q: %q is not a port (1 to 65535)", label, m[label]))
		default:
			out[label] = n
		}
	}
	return out, errors.Join(errs...)
}

func checkPortMap(v any) error {
	_, err := ParseDockerPortMap(v.(map[string]string))
	return err
}

func checkVolumes(v any) error {
	var errs []error
	for i, entry := range v.([]string) {
		if _, err := ParseDockerVolume(entry); err != nil {
			errs = append(errs, fmt.Errorf("entry %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// DockerUlimit parses one `ulimit` entry: nofile = "1024:2048", or one
// number for both the soft and the hard limit.
func DockerUlimit(name, spec string) (*units.Ulimit, error) {
	if !strings.Contains(spec, ":") {
		spec += ":" + spec
	}
	u, err := units.ParseUlimit(name + "=" + spec)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", name, err)
	}
	return u, nil
}

func checkUlimits(v any) error {
	m := v.(map[string]string)
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if _, err := DockerUlimit(name, m[name]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
