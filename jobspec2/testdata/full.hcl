job "full" {
  name        = "full-job"
  region      = "europe"
  namespace   = "prod"
  type        = "service"
  priority    = 60
  all_at_once = true
  datacenters = ["dc1"]

  meta {
    team = "infra"
    tier = 2
  }

  constraint {
    attribute = "${attr.kernel.name}"
    value     = "linux"
  }

  constraint {
    attribute = "${attr.kernel.version}"
    operator  = "version"
    value     = ">= 5.10"
  }

  constraint {
    distinct_hosts = true
  }

  reschedule {
    attempts       = 3
    interval       = "1h"
    delay          = "30s"
    delay_function = "exponential"
    max_delay      = "10m"
    unlimited      = false
  }

  group "app" {
    count          = 3
    shutdown_delay = "5s"

    meta = {
      "rack.zone" = "a"
    }

    constraint {
      attribute = "${meta.rack}"
      regexp    = "^r[0-9]+$"
    }

    constraint {
      distinct_property = "${meta.rack}"
      value             = "2"
    }

    restart {
      attempts = 2
      interval = "30m"
      delay    = "15s"
      mode     = "fail"
    }

    task "server" {
      driver         = "docker"
      user           = "nobody"
      kill_timeout   = "20s"
      kill_signal    = "SIGINT"
      shutdown_delay = "3s"

      config {
        image   = "nginx:1.27"
        args    = ["-g", "daemon off;"]
        ports   = ["http"]
        labels  = { app = "web", replicas = 3 }
        verbose = true
        ratio   = 0.5

        mount {
          type   = "bind"
          source = "local/conf"
          target = "/etc/nginx/conf.d"
        }

        mount {
          type   = "tmpfs"
          target = "/cache"
        }

        logging {
          type = "syslog"
          config {
            tag = "web"
          }
        }
      }

      env {
        PORT    = "8080"
        NODE_DC = "${node.datacenter}"
      }

      meta = {
        owner = "web-team"
      }

      resources {
        cpu        = 500
        cores      = 2
        memory     = 256
        memory_max = 512
        disk       = 1024
      }

      constraint {
        attribute = "${attr.cpu.arch}"
        operator  = "!="
        value     = "arm64"
      }

      restart {
        attempts = 5
        interval = "5m"
        delay    = "10s"
        mode     = "delay"
      }

      artifact {
        source      = "https://example.com/conf.tar.gz"
        destination = "local/conf"
        mode        = "dir"
        options {
          checksum = "sha256:abcd"
        }
        headers {
          User-Agent = "drover"
        }
      }

      artifact {
        source  = "https://example.com/tool"
        mode    = "file"
        options = { archive = "false" }
      }

      logs {
        max_files     = 4
        max_file_size = 15
        disabled      = false
      }
    }

    task "helper" {
      driver = "raw_exec"

      env = {
        "HELPER_MODE" = "fast"
        LEVEL         = 3
      }

      meta {
        role = "helper"
      }

      config {
        command = "/bin/sh"
        args    = ["-c", "echo ${NOMAD_TASK_NAME} on ${attr.unique.hostname}"]
      }
    }
  }
}
