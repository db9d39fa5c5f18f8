package docker

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/distribution/reference"
	units "github.com/docker/go-units"

	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

// defaultImagePullTimeout bounds a pull when the task gives no
// image_pull_timeout, as in Nomad.
const defaultImagePullTimeout = 5 * time.Minute

// taskConfig is a docker task's `config` block, with Nomad's key names.
type taskConfig struct {
	// Image is the normalised reference, e.g. docker.io/prom/prometheus:latest.
	Image            string
	ForcePull        bool
	ImagePullTimeout time.Duration
	Auth             *authConfig

	// Command replaces the image's CMD's program; Args are its
	// arguments (with no command: the image's CMD is replaced by Args).
	Command    string
	Args       []string
	Entrypoint []string
	WorkDir    string
	Labels     map[string]string

	NetworkMode string
	Volumes     []volumeSpec
	Privileged  bool
	CapAdd      []string
	CapDrop     []string
	Ulimits     []*units.Ulimit
	ShmSize     int64
	Init        bool
}

// authConfig is the `auth` block: credentials for the image's registry.
type authConfig struct {
	Username      string
	Password      string
	ServerAddress string
}

// volumeSpec is one `volumes` entry, "source:target[:ro|rw]".
type volumeSpec struct {
	Source, Target string
	ReadOnly       bool
}

var taskKeys = []string{
	"image", "force_pull", "image_pull_timeout", "auth",
	"command", "args", "entrypoint", "work_dir", "labels",
	"network_mode", "volumes", "privileged", "cap_add", "cap_drop", "ulimit", "shm_size", "init",
}

func parseTaskConfig(raw map[string]any) (*taskConfig, error) {
	r := taskconfig.NewReader(raw, taskKeys...)
	c := &taskConfig{
		ForcePull:        r.Bool("force_pull"),
		ImagePullTimeout: defaultImagePullTimeout,
		Command:          r.String("command"),
		Args:             r.StringList("args"),
		Entrypoint:       r.StringList("entrypoint"),
		WorkDir:          r.String("work_dir"),
		Labels:           r.StringMap("labels"),
		NetworkMode:      r.String("network_mode"),
		Privileged:       r.Bool("privileged"),
		CapAdd:           r.StringList("cap_add"),
		CapDrop:          r.StringList("cap_drop"),
		Init:             r.Bool("init"),
	}
	c.Image = readImage(r)
	if r.Has("image_pull_timeout") {
		c.ImagePullTimeout = r.Duration("image_pull_timeout")
		if c.ImagePullTimeout <= 0 && r.Err() == nil {
			r.Fail(errors.New(`config key "image_pull_timeout": must be positive`))
		}
	}
	if r.Has("auth") {
		a := r.Child("auth", "username", "password", "server_address")
		c.Auth = &authConfig{
			Username:      a.String("username"),
			Password:      a.String("password"),
			ServerAddress: a.String("server_address"),
		}
	}
	if c.WorkDir != "" && !strings.HasPrefix(c.WorkDir, "/") {
		r.Fail(fmt.Errorf(`config key "work_dir": %q is not an absolute path`, c.WorkDir))
	}
	for i, v := range r.StringList("volumes") {
		spec, err := parseVolume(v)
		if err != nil {
			r.Fail(fmt.Errorf(`config key "volumes": entry %d: %w`, i, err))
			continue
		}
		c.Volumes = append(c.Volumes, spec)
	}
	c.Ulimits = readUlimits(r)
	if n := r.Int("shm_size"); n < 0 {
		r.Fail(fmt.Errorf(`config key "shm_size": must not be negative, got %d`, n))
	} else {
		c.ShmSize = int64(n)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// readImage reads and normalises the image reference: "redis" is
// docker.io/library/redis:latest.
func readImage(r *taskconfig.Reader) string {
	if !r.Has("image") {
		r.Fail(errors.New(`config key "image" is required`))
		return ""
	}
	s := r.String("image")
	if s == "" {
		if _, ok := r.Raw("image").(string); ok {
			r.Fail(errors.New(`config key "image" must not be empty`))
		}
		return ""
	}
	named, err := reference.ParseNormalizedNamed(s)
	if err != nil {
		r.Fail(fmt.Errorf(`config key "image": %q is not a valid image reference: %w`, s, err))
		return ""
	}
	return reference.TagNameOnly(named).String()
}

func parseVolume(v string) (volumeSpec, error) {
	parts := strings.Split(v, ":")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return volumeSpec{}, fmt.Errorf("%q is not source:target or source:target:mode", v)
	}
	spec := volumeSpec{Source: parts[0], Target: parts[1]}
	if !strings.HasPrefix(spec.Target, "/") {
		return volumeSpec{}, fmt.Errorf("%q: target %q is not an absolute path", v, spec.Target)
	}
	if len(parts) == 3 {
		switch parts[2] {
		case "ro":
			spec.ReadOnly = true
		case "rw":
		default:
			return volumeSpec{}, fmt.Errorf("%q: mode %q is neither ro nor rw", v, parts[2])
		}
	}
	return spec, nil
}

// readUlimits reads `ulimit { nofile = "1024:2048" nproc = "64" }`.
func readUlimits(r *taskconfig.Reader) []*units.Ulimit {
	m := r.StringMap("ulimit")
	var out []*units.Ulimit
	for _, name := range sortedKeys(m) {
		spec := m[name]
		if !strings.Contains(spec, ":") {
			spec += ":" + spec
		}
		u, err := units.ParseUlimit(name + "=" + spec)
		if err != nil {
			r.Fail(fmt.Errorf(`config key "ulimit": %q: %w`, name, err))
			continue
		}
		out = append(out, u)
	}
	return out
}
