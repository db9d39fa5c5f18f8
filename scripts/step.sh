#!/usr/bin/env bash
# step.sh "what" command...: runs one step of a make target, saying what it
# is before it starts and how long it took when it ends, so that a long
# target is never silent.
set -uo pipefail
what="$1"
shift
echo "==> $what"
start=$(date +%s)
"$@"
rc=$?
secs=$(($(date +%s) - start))
if ((rc == 0)); then
	echo "==> done in $((secs / 60))m$((secs % 60))s: $what"
else
	echo "==> FAILED after $((secs / 60))m$((secs % 60))s (exit $rc): $what" >&2
fi
exit "$rc"
