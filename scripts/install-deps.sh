#!/usr/bin/env bash
# Installs what Drover's build and tests need on a fresh Debian machine.
# Go modules come through go.mod; this script covers the rest and is a no-op
# when everything is already there.
set -euo pipefail

# gcc (with libc's headers) is for the race detector, which needs cgo;
# the binary itself is built without it.
need=()
for cmd in git make; do
	command -v "$cmd" >/dev/null 2>&1 || need+=("$cmd")
done
command -v gcc >/dev/null 2>&1 || need+=(gcc libc6-dev)
# The headless browser that the web UI's end-to-end tests drive
# (e2e/ui_test.go); without recommends, it is a browser and its libraries.
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# The Prometheus server that the max_run_duration dashboard's end-to-end
# test scrapes a real agent with (e2e/dashboard_test.go).
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
# ip (iproute2) and nsenter (util-linux) build the network namespaces the
# partition tests (e2e/partition) run a cluster in.
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v nsenter >/dev/null 2>&1 || need+=(util-linux)
# The CNI plugins (bridge, host-local, firewall, portmap, ...) in
# /usr/lib/cni, and iptables, which the firewall and portmap plugins run:
# the bridge network mode (client/cni) and its tests.
[ -x /usr/lib/cni/portmap ] || need+=(containernetworking-plugins)
command -v iptables >/dev/null 2>&1 || need+=(iptables)
if ((${#need[@]})); then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: missing ${need[*]}; run as root or install them" >&2
		exit 1
	fi
	echo "==> installing ${need[*]} with apt-get" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

if ! command -v go >/dev/null 2>&1; then
	echo "install-deps: Go 1.26 is required at /usr/local/go/bin or on PATH" >&2
	exit 1
fi
# go mod download is silent: say so when it has something to fetch (the
# first run), which GOPROXY=off tells apart by failing.
if ! GOPROXY=off go mod download >/dev/null 2>&1; then
	echo "==> downloading the Go modules that go.mod names (first run only)" >&2
	go mod download
fi
