# A batch job configured by templates: a config file and environment
# variables rendered before the task starts. Rendering counts against the
# group's max_run_duration, like any work before the start.
job "template" {
  datacenters = ["dc1"]
  type        = "batch"

  group "report" {
    max_run_duration = "1m"

    task "report" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "cat local/report.ini; echo \"sections: $SECTIONS (owner $OWNER)\""]
      }

      meta {
        owner    = "ops"
        sections = "alpha,beta,gamma"
      }

      template {
        destination = "local/report.ini"
        perms       = "0640"
        data        = <<EOT
[report]
task = {{ env "NOMAD_TASK_NAME" }}
alloc = {{ env "NOMAD_SHORT_ALLOC_ID" }}
{{ range $i, $s := split "," (env "NOMAD_META_sections") }}
[section {{ $i }}]
name = {{ $s | toUpper }}
{{ end }}
EOT
      }

      template {
        destination = "${NOMAD_SECRETS_DIR}/report.env"
        env         = true
        data        = <<EOT
OWNER={{ or (env "NOMAD_META_owner") "nobody" }}
SECTIONS={{ len (split "," (env "NOMAD_META_sections")) }}
EOT
      }
    }
  }
}
