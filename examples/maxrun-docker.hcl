# The headline job, with a container: two groups, each with its own
# budget, counted from the moment the servers created its allocation.
#
# "maxrun" is the group of maxrun.hcl, the README's tour: "maxrun" is
# killed at its 10 s deadline, "maxrun2" finishes on its own after 2
# seconds.
#
# "huge_docker_image" may run for 2 seconds, and the image pull counts:
# prom/prometheus takes longer than that to pull on most links, so the
# budget runs out during the pull, the pull is abandoned, the task never
# starts, and the allocation ends complete with "allocation exceeded
# max_run_duration", as the other one does. Where the pull fails instead
# (no registry answers), the budget runs out while the task waits to be
# restarted, and the allocation ends failed, naming the pull's error.
# Point `image` at a registry of your own with -var image=...
variable "image" {
  type    = string
  default = "prom/prometheus"
}

job "maxrun-docker" {
  type = "batch"

  group "maxrun" {
    max_run_duration = "10s"

    task "maxrun" {
      driver = "raw_exec"

      config {
        command = "/bin/sleep"
        args    = ["1000m"]
      }
    }

    task "maxrun2" {
      driver = "raw_exec"

      config {
        command = "/bin/sleep"
        args    = ["2s"]
      }
    }
  }

  group "huge_docker_image" {
    max_run_duration = "2s"

    task "prometheus" {
      driver = "docker"

      config {
        image = var.image
      }
    }
  }
}
