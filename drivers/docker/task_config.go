package docker

import (
	"fmt"
	"time"

	units "github.com/docker/go-units"

	"github.com/drover-io/drover/drivers/configschema"
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
	// Ports are the labels of the group's ports to publish (ports.go).
	Ports      []string
	Volumes    []volumeSpec
	Privileged bool
	CapAdd     []string
	CapDrop    []string
	Ulimits    []*units.Ulimit
	ShmSize    int64
	Init       bool
}

// authConfig is the `auth` block: credentials for the image's registry.
type authConfig struct {
	Username      string
	Password      string
	ServerAddress string
}

// volumeSpec is one `volumes` entry, "source:target[:ro|rw]".
type volumeSpec = configschema.DockerVolume

// parseTaskConfig reads a task's config, which configschema.Docker
// defines.
func parseTaskConfig(raw map[string]any) (*taskConfig, error) {
	r, err := configschema.Docker.Read(raw)
	if err != nil {
		return nil, err
	}
	c := &taskConfig{
		ForcePull:        r.Bool("force_pull"),
		ImagePullTimeout: defaultImagePullTimeout,
		Command:          r.String("command"),
		Args:             r.StringList("args"),
		Entrypoint:       r.StringList("entrypoint"),
		WorkDir:          r.String("work_dir"),
		Labels:           r.StringMap("labels"),
		NetworkMode:      r.String("network_mode"),
		Ports:            r.StringList("ports"),
		Privileged:       r.Bool("privileged"),
		CapAdd:           r.StringList("cap_add"),
		CapDrop:          r.StringList("cap_drop"),
		Init:             r.Bool("init"),
		ShmSize:          int64(r.Int("shm_size")),
	}
	if c.Image, err = configschema.NormalizeImage(r.String("image")); err != nil {
		r.Fail(fmt.Errorf("config key %q: %w", "image", err))
	}
	if r.Has("image_pull_timeout") {
		c.ImagePullTimeout = r.Duration("image_pull_timeout")
	}
	if r.Has("auth") {
		a := r.Nested("auth")
		c.Auth = &authConfig{
			Username:      a.String("username"),
			Password:      a.String("password"),
			ServerAddress: a.String("server_address"),
		}
	}
	for _, v := range r.StringList("volumes") {
		spec, err := configschema.ParseDockerVolume(v)
		r.Fail(err)
		c.Volumes = append(c.Volumes, spec)
	}
	ulimits := r.StringMap("ulimit")
	for _, name := range sortedKeys(ulimits) {
		u, err := configschema.DockerUlimit(name, ulimits[name])
		r.Fail(err)
		c.Ulimits = append(c.Ulimits, u)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return c, nil
}
