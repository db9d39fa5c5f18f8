#!/usr/bin/env bash
# Installs what Drover needs on a fresh Debian machine, and nothing more:
#
#   scripts/install-deps.sh        what `make dev` needs: Go's modules, to
#                                  build and run the agent (no root, no apt)
#   scripts/install-deps.sh test   what `make test` needs besides: gcc for
#                                  the race detector and the programs the
#                                  end-to-end tests drive (a browser,
#                                  Prometheus, iproute2, CNI plugins),
#                                  from Debian as root
#
# Go modules come through go.mod. Each part is a no-op when everything is
# already there, and apt's output goes to a log file, not the terminal.
set -euo pipefail

mode="${1:-dev}"
case "$mode" in
dev | test) ;;
*)
	echo "install-deps: unknown mode \"$mode\"; use no argument (for make dev) or \"test\" (for make test)" >&2
	exit 2
	;;
esac

if ! command -v go >/dev/null 2>&1; then
	echo "install-deps: Go 1.26 is required at /usr/local/go/bin or on PATH" >&2
	exit 1
fi

# The Debian packages the tests need, as "command package" pairs: the
# package is installed when the command (or, for a path, the file) is
# missing. Building and running
# the agent needs none.
test_packages=(
	# The race detector needs cgo; the binary itself is built without it.
	"gcc gcc"
	"/usr/include/stdio.h libc6-dev"
	# The headless browser that the web UI's end-to-end tests drive
	# (e2e/ui_test.go); without recommends, a browser and its libraries.
	"chromium chromium"
	# The Prometheus server that the dashboard's end-to-end test starts
	# on a loopback port of its own (e2e/dashboard_test.go).
	"prometheus prometheus"
	# ip (iproute2) and nsenter (util-linux) build the network namespaces
	# the partition tests (e2e/partition) run a cluster in.
	"ip iproute2"
	"nsenter util-linux"
	# The CNI plugins (bridge, host-local, firewall, portmap, ...) in
	# /usr/lib/cni, and iptables, which the firewall and portmap plugins
	# run: the bridge network mode (client/cni) and its tests. An agent
	# that runs bridge-mode jobs needs them too; one without them offers
	# only host networking.
	"/usr/lib/cni/portmap containernetworking-plugins"
	"iptables iptables"
)

need=()
if [ "$mode" = test ]; then
	for pair in "${test_packages[@]}"; do
		read -r what pkg <<<"$pair"
		if [[ "$what" == /* ]]; then
			[ -e "$what" ] || need+=("$pkg")
		else
			command -v "$what" >/dev/null 2>&1 || need+=("$pkg")
		fi
	done
fi
if ((${#need[@]})); then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: missing Debian packages ${need[*]}; run as root, or install them yourself" >&2
		exit 1
	fi
	log="${TMPDIR:-/tmp}/drover-install-deps.log"
	echo "==> installing ${need[*]} from Debian for the tests (apt's output: $log)" >&2
	{
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
	} >"$log" 2>&1 || {
		echo "install-deps: apt-get failed; the last lines of $log:" >&2
		tail -n 20 "$log" >&2
		exit 1
	}
	# Debian's prometheus package enables and starts a system service; the
	# tests start their own server, so leave none running behind them.
	if [[ " ${need[*]} " == *" prometheus "* ]] && command -v systemctl >/dev/null 2>&1; then
		systemctl disable --now prometheus >>"$log" 2>&1 || true
	fi
fi

# go mod download is silent: say so when it has something to fetch (the
# first run), which GOPROXY=off tells apart by failing.
if ! GOPROXY=off go mod download >/dev/null 2>&1; then
	echo "==> downloading the Go modules that go.mod names (first run only)" >&2
	go mod download
fi
