package jobspec2

import (
	"fmt"
	"testing"

	"github.com/shoenig/test/must"
)

func parseCheckingDrivers(src string) error {
	_, err := ParseWithConfig(&ParseConfig{Path: "job.hcl", Body: []byte(src), CheckDrivers: true})
	return err
}

func TestCheckDrivers_ConfigProblemsAtTheirKey(t *testing.T) {
	err := parseCheckingDrivers(`job "j" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        comand = "/bin/true"
        args   = "-x"
      }
    }
    task "d" {
      driver = "docker"
      config {
        image = "busybox"
        auth {
          usernme = "u"
        }
      }
    }
  }
}
`)
	must.Eq(t, `job.hcl:5,7-13: Invalid raw_exec config; Task "t": config key "command" is required.
job.hcl:6,9-15: Invalid raw_exec config; Task "t": unsupported config key "comand": did you mean "command"? (supported: command, args, work_dir).
job.hcl:7,9-13: Invalid raw_exec config; Task "t": config key "args": want a list of strings, got string (-x).
job.hcl:15,11-18: Invalid docker config; Task "d": block "auth": unsupported config key "usernme": did you mean "username"? (supported: username, password, server_address).`, err.Error())
}

func TestCheckDrivers_MissingConfigBlock(t *testing.T) {
	err := parseCheckingDrivers("job \"j\" {\n  group \"g\" {\n    task \"t\" {\n      driver = \"raw_exec\"\n    }\n  }\n}\n")
	must.Eq(t, `job.hcl:4,7-26: Invalid raw_exec config; Task "t": config key "command" is required.`, err.Error())
}

func TestCheckDrivers_UnknownDriver(t *testing.T) {
	src := "job \"j\" {\n  group \"g\" {\n    task \"t\" {\n      driver = %q\n      config {}\n    }\n  }\n}\n"
	err := parseCheckingDrivers(fmt.Sprintf(src, "rawexec"))
	must.Eq(t, `job.hcl:4,16-25: Unknown driver "rawexec"; Task "t": did you mean "raw_exec"? Drover's drivers are docker, exec, exec2, java, raw_exec.`, err.Error())
	err = parseCheckingDrivers(fmt.Sprintf(src, "podman"))
	must.Eq(t, `job.hcl:4,16-24: "podman" is a Nomad driver that Drover does not support yet; podman (Podman containers (an external plugin in Nomad): Drover's clients have no Podman engine to run them; the docker driver runs the same images); see website/content/docs/differences.md. Task "t": Drover's drivers are docker, exec, exec2, java, raw_exec.`, err.Error())
}

func TestCheckDrivers_ReferencesAreTheClients(t *testing.T) {
	must.NoError(t, parseCheckingDrivers(`job "j" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command  = "${NOMAD_TASK_DIR}/run"
        work_dir = "${NOMAD_ALLOC_DIR}"
      }
    }
  }
}
`))
}

func TestCheckDrivers_OffByDefault(t *testing.T) {
	_, err := parseString(t, "job \"j\" {\n  group \"g\" {\n    task \"t\" {\n      driver = \"exce\"\n      config {\n        comand = 1\n      }\n    }\n  }\n}\n")
	must.NoError(t, err)
}

// TestCheckDrivers_DockerBlocksInEitherForm: Nomad's docker keys that
// are blocks are accepted as repeated blocks and as a list of objects,
// and a problem in one is reported at its key.
func TestCheckDrivers_DockerBlocksInEitherForm(t *testing.T) {
	must.NoError(t, parseCheckingDrivers(`job "j" {
  group "g" {
    task "d" {
      driver = "docker"
      config {
        image = "busybox"
        mount {
          type   = "bind"
          source = "local"
          target = "/etc/app"
        }
        mount {
          type   = "tmpfs"
          target = "/scratch"
          tmpfs_options { size = 1000000 }
        }
        mounts = [{ type = "volume", target = "/cache", volume_options = { no_copy = true } }]
        devices { host_path = "/dev/fuse" }
        logging {
          type = "journald"
          config { tag = "d" }
        }
        dns_servers = ["10.0.0.2"]
        extra_hosts = ["db:10.0.0.9"]
        sysctl      = { "net.ipv4.tcp_syncookies" = "1" }
      }
    }
  }
}
`))
	err := parseCheckingDrivers(`job "j" {
  group "g" {
    task "d" {
      driver = "docker"
      config {
        image = "busybox"
        mount {
          type   = "nfs"
          target = "/n"
        }
      }
    }
  }
}
`)
	must.Eq(t, `job.hcl:7,9-14: Invalid docker config; Task "d": config key "mount": entry 0: type "nfs" is none of "bind", "volume", "tmpfs".`, err.Error())
}
