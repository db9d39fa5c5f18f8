package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func TestHostVolumes(t *testing.T) {
	dir := t.TempDir()
	data, ro := filepath.Join(dir, "data"), filepath.Join(dir, "ro")
	must.NoError(t, os.Mkdir(data, 0o755))
	must.NoError(t, os.Mkdir(ro, 0o755))

	cfg, err := LoadConfig(DefaultConfig(), writeFile(t, t.TempDir(), "a.hcl", `client {
  host_volume "data" {
    path = "`+data+`/"
  }
  host_volume "ro" {
    path      = "`+ro+`"
    read_only = true
  }
}`))
	must.NoError(t, err)
	must.Eq(t, map[string]*structs.ClientHostVolume{"data": {Path: data}, "ro": {Path: ro, ReadOnly: true}}, cfg.Client.HostVolumes)
	must.SliceEmpty(t, cfg.Warnings)

	// JSON, and a second file that replaces one volume.
	cfg, err = LoadConfig(cfg, writeFile(t, t.TempDir(), "b.json", `{"client": {"host_volume": {"data": {"path": "`+ro+`", "read_only": true}}}}`))
	must.NoError(t, err)
	must.Eq(t, map[string]*structs.ClientHostVolume{"data": {Path: ro, ReadOnly: true}, "ro": {Path: ro, ReadOnly: true}}, cfg.Client.HostVolumes)
}

func TestHostVolumes_Errors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	must.NoError(t, os.WriteFile(file, nil, 0o644))
	cases := map[string]string{
		`host_volume "a" {}`: `a.hcl:2,19: client host_volume "a": path is required`,
		`host_volume "a" {
    path = "srv/a"
  }`: `a.hcl:3,12: client host_volume path = "srv/a": not an absolute path`,
		`host_volume "a" {
    path = "` + dir + `/missing"
  }`: `client host_volume path = "` + dir + `/missing": no such directory`,
		`host_volume "a" {
    path = "` + file + `"
  }`: `client host_volume path = "` + file + `": not a directory`,
		`host_volume "a" {
    path = "` + dir + `"
  }
  host_volume "a" {
    path = "` + dir + `"
  }`: `client host_volume "a": defined more than once`,
		`host_volume "a" {
    path  = "` + dir + `"
    owner = "root"
  }`: `owner`,
		`host_volume {
    path = "` + dir + `"
  }`: `Missing name for host_volume`,
	}
	for content, want := range cases {
		_, err := LoadConfig(DefaultConfig(), writeFile(t, t.TempDir(), "a.hcl", "client {\n  "+content+"\n}"))
		must.ErrorContains(t, err, want)
	}
}
