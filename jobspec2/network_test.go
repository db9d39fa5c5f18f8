package jobspec2

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestParse_Network(t *testing.T) {
	job := mustParseString(t, `job "j" {
  group "g" {
    network {
      mode = "host"
      port "http" {
        static = 8080
        to     = 80
      }
      port "metrics" {}
      port "admin" { to = 9000 }
      port "db" {
        static       = "3306"
        host_network = "default"
      }
      dns {
        servers  = ["1.1.1.1"]
        searches = ["example.com"]
        options  = ["ndots:2"]
      }
    }
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}
`)
	must.Eq(t, []*api.NetworkResource{{
		Mode:          "host",
		ReservedPorts: []api.Port{{Label: "http", Value: 8080, To: 80}, {Label: "db", Value: 3306, HostNetwork: "default"}},
		DynamicPorts:  []api.Port{{Label: "metrics"}, {Label: "admin", To: 9000}},
		DNS:           &api.DNSConfig{Servers: []string{"1.1.1.1"}, Searches: []string{"example.com"}, Options: []string{"ndots:2"}},
	}}, job.TaskGroups[0].Networks)
}

func TestParse_NetworkErrors(t *testing.T) {
	for name, tc := range map[string]struct{ src, want string }{
		"two network blocks": {`network {}
    network {}`, "Duplicate network block"},
		"duplicate port": {`network {
      port "a" {}
      port "a" { static = 1 }
    }`, `Port "a" was already defined`},
		"static of the wrong type": {`network {
      port "a" { static = "x" }
    }`, `Inappropriate value for attribute "static"`},
		"unknown argument": {`network {
      port "a" { bogus = 1 }
    }`, "Unsupported argument"},
		"ignore_collision": {`network {
      port "a" {
        static           = 1
        ignore_collision = true
      }
    }`, `"ignore_collision" is a Nomad argument that Drover does not support yet`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseString(t, "job \"j\" {\n  group \"g\" {\n    "+tc.src+"\n  }\n}\n")
			must.ErrorContains(t, err, tc.want)
		})
	}
}

func TestParse_TaskNetwork(t *testing.T) {
	job := mustParseString(t, `job "j" {
  group "g" {
    task "t" {
      driver = "docker"
      config {
        image    = "traefik"
        port_map {
          proxy = 80
        }
      }
      resources {
        cpu = 150
        network {
          mbits = 10
          port "proxy" { static = 80 }
          port "admin" {}
        }
      }
    }
  }
}
`)
	must.Nil(t, job.TaskGroups[0].Networks)
	r := job.TaskGroups[0].Tasks[0].Resources
	must.Eq(t, 150, *r.CPU)
	must.Eq(t, []*api.NetworkResource{{
		MBits:         new(10),
		ReservedPorts: []api.Port{{Label: "proxy", Value: 80}},
		DynamicPorts:  []api.Port{{Label: "admin"}},
	}}, r.Networks)
}

func TestParse_TaskNetworkErrors(t *testing.T) {
	for name, tc := range map[string]struct{ src, want string }{
		"two network blocks": {`network {}
        network {}`, "Duplicate network block"},
		"duplicate port": {`network {
          port "a" {}
          port "a" {}
        }`, `Port "a" was already defined`},
		"unknown argument": {`network {
          port "a" { bogus = 1 }
        }`, "Unsupported argument"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseString(t, "job \"j\" {\n  group \"g\" {\n    task \"t\" {\n      driver = \"raw_exec\"\n      resources {\n        "+tc.src+"\n      }\n    }\n  }\n}\n")
			must.ErrorContains(t, err, tc.want)
		})
	}
}
