# An artifact download that the deadline cuts off.
#
# max_run_duration counts from the creation of the allocation, not from
# the start of the task: the time spent downloading artifacts is part of
# the budget. If the download of artifact_url takes longer than 10
# seconds, the deadline stops it, the task never starts, and the
# allocation ends complete with the description
# "allocation exceeded max_run_duration".
#
# Point artifact_url at a server of your own:
#
#   drover job run -var artifact_url=http://127.0.0.1:8000/big.tar.gz slow-artifact.hcl
variable "artifact_url" {
  type        = string
  description = "Where the archive is downloaded from (http or https)."
  default     = "http://127.0.0.1:8000/big.tar.gz"
}

job "slow-artifact" {
  type = "batch"

  group "fetch" {
    max_run_duration = "10s"

    # One allocation, one try: a download that fails outright (the server
    # is not there) fails the allocation instead of retrying it.
    restart {
      attempts = 0
      mode     = "fail"
    }

    reschedule {
      attempts  = 0
      unlimited = false
    }

    task "unpack" {
      driver = "raw_exec"

      artifact {
        source      = var.artifact_url
        destination = "local/data"
      }

      config {
        command = "/bin/sh"
        args    = ["-c", "ls -l local/data"]
      }
    }
  }
}
