package configschema_test

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers/configschema"
	"github.com/drover-io/drover/drivers/docker"
	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/drivers/rawexec"
	"github.com/drover-io/drover/structs"
)

// TestDrivers_AreTheBuiltInDrivers holds the schemas to the drivers the
// client builds and to the names job validation accepts.
func TestDrivers_AreTheBuiltInDrivers(t *testing.T) {
	for _, name := range []string{rawexec.DriverName, docker.DriverName, mock.DriverName} {
		_, ok := configschema.Lookup(name)
		must.True(t, ok, must.Sprintf("driver %q has no config schema", name))
	}
	must.Eq(t, structs.Drivers, configschema.Drivers())
	_, ok := configschema.Lookup("podman")
	must.False(t, ok)
}

func TestDocker_Checks(t *testing.T) {
	problems := configschema.Docker.CheckSubmitted(map[string]any{
		"image":              "Prom/Prometheus",
		"image_pull_timeout": "0s",
		"volumes":            []any{"/a:/b", "nope"},
		"ulimit":             []any{map[string]any{"nofiles": "1"}},
		"work_dir":           "data",
	})
	var got []string
	for _, p := range problems {
		got = append(got, p.Error())
	}
	must.Len(t, 5, got)
	must.StrContains(t, got[0], `config key "image": "Prom/Prometheus" is not a valid image reference`)
	must.Eq(t, `config key "image_pull_timeout": must be positive`, got[1])
	must.Eq(t, `config key "work_dir": "data" is not an absolute path`, got[2])
	must.Eq(t, `config key "volumes": entry 1: "nope" is not source:target or source:target:mode`, got[3])
	must.StrContains(t, got[4], `config key "ulimit": "nofiles": invalid ulimit type`)

	image, err := configschema.NormalizeImage("redis")
	must.NoError(t, err)
	must.Eq(t, "docker.io/library/redis:latest", image)
}

// TestDocker_NoOtherHostPaths: Nomad's docker keys that hand the engine
// host paths, other than volumes, mount and devices, are refused. One
// added must go through the driver's binds (drivers/docker binds.go and
// mounter), so that a path inside the allocation is resolved beneath it
// and never by the engine, or through its policy (policy.go); the
// security model's docs list what a task reaches.
func TestDocker_NoOtherHostPaths(t *testing.T) {
	for _, key := range []string{"volume_driver", "storage_opt", "userns_mode", "uts_mode", "cgroupns"} {
		_, err := configschema.Docker.Read(map[string]any{"image": "redis", key: []any{map[string]any{"source": "/"}}})
		must.ErrorContains(t, err, `unsupported config key "`+key+`"`)
	}
}

func TestRawExec_Checks(t *testing.T) {
	var got []string
	for _, p := range configschema.RawExec.CheckSubmitted(map[string]any{"command": " ", "work_dir": "tmp"}) {
		got = append(got, p.Error())
	}
	must.Eq(t, []string{`config key "command": must not be empty`, `config key "work_dir": "tmp" is not an absolute path`}, got)
}

func TestMock_ExitSignal(t *testing.T) {
	must.SliceEmpty(t, configschema.Mock.CheckSubmitted(map[string]any{"exit_signal": "SIGTERM"}))
	must.SliceEmpty(t, configschema.Mock.CheckSubmitted(map[string]any{"exit_signal": 9}))
	must.Len(t, 1, configschema.Mock.CheckSubmitted(map[string]any{"exit_signal": -1}))
	must.Len(t, 1, configschema.Mock.CheckSubmitted(map[string]any{"exit_signal": true}))
}

func TestDocker_PortMap(t *testing.T) {
	for name, v := range map[string]any{
		"block": []any{map[string]any{"proxy": 80, "admin": float64(8080)}},
		"map":   map[string]any{"proxy": "80", "admin": 8080},
	} {
		t.Run(name, func(t *testing.T) {
			must.SliceEmpty(t, configschema.Docker.CheckSubmitted(map[string]any{"image": "traefik", "port_map": v}))
		})
	}
	problems := configschema.Docker.CheckSubmitted(map[string]any{
		"image":    "traefik",
		"port_map": map[string]any{"a": 0, "b": 70000, "c": "http", "d": 443},
	})
	must.Len(t, 1, problems)
	must.Eq(t, `config key "port_map": port "a": "0" is not a port (1 to 65535)`+"\n"+
		`port "b": "70000" is not a port (1 to 65535)`+"\n"+
		`port "c": "http" is not a port (1 to 65535)`, problems[0].Error())

	m, err := configschema.ParseDockerPortMap(map[string]string{"proxy": "80"})
	must.NoError(t, err)
	must.Eq(t, map[string]int{"proxy": 80}, m)
}
