package jobspec2

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestParse_Service(t *testing.T) {
	job := mustParseString(t, `job "j" {
  group "g" {
    network {
      port "http" {}
    }
    service {
      name         = "web"
      provider     = "nomad"
      port         = "http"
      tags         = ["a", "b"]
      address_mode = "host"
      task         = "t"
      meta {
        version = "1"
      }
      check {
        type            = "http"
        path            = "/health"
        interval        = "10s"
        timeout         = "2s"
        tls_skip_verify = true
        header {
          Authorization = ["Basic x"]
        }
      }
      check {
        type     = "tcp"
        port     = "http"
        interval = "5s"
        timeout  = "1s"
      }
    }
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      service {
        port    = 8080
        address = "10.0.0.1"
        meta    = { k = "v" }
      }
    }
  }
}
`)
	must.Eq(t, []*api.Service{{
		Name: "web", Provider: "nomad", PortLabel: "http", Tags: []string{"a", "b"},
		AddressMode: "host", TaskName: "t", Meta: map[string]string{"version": "1"},
		Checks: []api.ServiceCheck{
			{Type: "http", Path: "/health", Interval: 10 * time.Second, Timeout: 2 * time.Second, TLSSkipVerify: true,
				Header: map[string][]string{"Authorization": {"Basic x"}}},
			{Type: "tcp", PortLabel: "http", Interval: 5 * time.Second, Timeout: time.Second},
		},
	}}, job.TaskGroups[0].Services)
	must.Eq(t, []*api.Service{{PortLabel: "8080", Address: "10.0.0.1", Meta: map[string]string{"k": "v"}}},
		job.TaskGroups[0].Tasks[0].Services)
}

func TestParse_ServiceErrors(t *testing.T) {
	for name, tc := range map[string]struct{ src, want string }{
		"connect": {`service {
      connect {
        sidecar_service {}
      }
    }`, `"connect" is a Nomad block that Drover does not support yet`},
		"tagged_addresses": {`service {
      tagged_addresses { lan = "10.0.0.1" }
    }`, `"tagged_addresses" is a Nomad block that Drover does not support yet`},
		"kind":                   {`service { kind = "api-gateway" }`, `"kind" is a Nomad argument that Drover does not support yet`},
		"tags of the wrong type": {`service { tags = "a" }`, `Inappropriate value for attribute "tags"`},
		"unknown argument":       {`service { bogus = 1 }`, "Unsupported argument"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseString(t, "job \"j\" {\n  group \"g\" {\n    "+tc.src+"\n  }\n}\n")
			must.ErrorContains(t, err, tc.want)
		})
	}
}
