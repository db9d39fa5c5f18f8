variable "datacenters" {
  type        = list(string)
  default     = ["dc1"]
  description = "Where the job may run."
}

variable "count" {
  type    = number
  default = 1
}

variable "image_tag" {
  type = string
}

variable "greeting" {
  default = "hello"
}

variables {
  owner = "team-a"
}

locals {
  name    = "web-${var.image_tag}"
  command = "/bin/${lower(var.greeting)}"
  labels  = merge({ owner = var.owner }, { tag = var.image_tag })
}

job "web" {
  datacenters = var.datacenters
  meta        = local.labels

  group "web" {
    count = var.count

    task "web" {
      driver = "raw_exec"
      config {
        command = local.command
        args    = [format("--name=%s", local.name), upper(var.greeting), "${NOMAD_ALLOC_ID}"]
      }
    }
  }
}
