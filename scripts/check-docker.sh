#!/usr/bin/env bash
# Makes sure the Docker engine answers, which the docker driver's tests
# need (they pull from a registry they start on 127.0.0.1). When it does
# not, it tries to start it (as root), then fails loudly: in CI no docker
# test may be skipped.
set -euo pipefail

sock="${DOCKER_HOST:-unix:///var/run/docker.sock}"
sock="${sock#unix://}"

answers() {
	if command -v docker >/dev/null 2>&1; then
		docker version --format '{{.Server.Version}}' >/dev/null 2>&1
	else
		curl -fsS --unix-socket "$sock" http://localhost/_ping >/dev/null 2>&1
	fi
}

if answers; then
	exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
	echo "check-docker: the Docker engine does not answer; starting it" >&2
	service docker start >/dev/null 2>&1 || systemctl start docker >/dev/null 2>&1 || true
	for _ in $(seq 1 30); do
		answers && exit 0
		sleep 1
	done
fi
echo "check-docker: the Docker engine does not answer at $sock; the docker driver's tests need it" >&2
exit 1
