job "lifecycle" {
  datacenters = ["dc1"]
  type        = "batch"

  group "work" {
    task "setup" {
      driver = "raw_exec"
      lifecycle {
        hook = "prestart"
      }
      config {
        command = "/bin/true"
      }
    }

    task "proxy" {
      driver = "raw_exec"
      lifecycle {
        hook    = "prestart"
        sidecar = true
      }
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
    }

    task "main" {
      driver = "raw_exec"
      leader = true
      config {
        command = "/bin/echo"
        args    = ["hello"]
      }
    }

    task "cleanup" {
      driver = "raw_exec"
      lifecycle {
        hook = "poststop"
      }
      config {
        command = "/bin/rm"
        args    = ["-rf", "${NOMAD_ALLOC_DIR}/scratch"]
      }
    }
  }
}
