#!/bin/sh
# capture_frame.sh FILE [RUNS]: the viewer attached to a real gRPC profiler
# server (tests/capture/fake_profiler_server.py, which returns FILE as the
# captured XSpace), from the end of a capture (c, then the capture's
# duration) to the first frame that shows the captured profile (the status
# line says "captured"); polled every 20 ms, medians of RUNS runs.
#
# capture_frame.sh --target HOST:PORT|PID [RUNS] [DURATION_MS]: the same
# against a running workload (its profiler server, or its xtop agent under
# `xtop run`): there the time also holds the workload's profiler collecting
# and serialising its trace.
set -eu
O=${O:-build}
XTOP=$O/xtop
PY=/usr/bin/python3
TARGET=
if [ "$1" = --target ]; then
	TARGET=$2
	shift 2
	F=
	RUNS=${1:-3}
	DUR=${2:-500}
else
	F=$1
	RUNS=${2:-3}
	DUR=500
fi
command -v tmux >/dev/null 2>&1 || { echo "  (skipped: tmux not installed)"; exit 0; }
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/xtop-bench-cap.XXXXXX")
T="tmux -L xtop-bench-cap-$$-0 -f /dev/null"
SPID=
trap '$T kill-server >/dev/null 2>&1 || true; [ -z "$SPID" ] || kill $SPID 2>/dev/null || true; rm -rf "$TMPD"' EXIT
if [ -z "$TARGET" ]; then
	$PY -c 'import grpc' 2>/dev/null || { echo "  (skipped: python3-grpcio not installed)"; exit 0; }
	# A server per run: a killed one may still hold its socket when the
	# next starts ("server exited unexpectedly").
	$PY tests/capture/fake_profiler_server.py --xspace "$F" --mode auto >"$TMPD/srv.out" 2>"$TMPD/srv.err" &
	SPID=$!
	PORT=
	for _ in $(seq 1 600); do
		PORT=$(sed -n 's/^PORT //p' "$TMPD/srv.out")
		[ -n "$PORT" ] && break
		sleep 0.1
	done
	[ -n "$PORT" ] || { echo "  (skipped: the profiler server did not start)"; exit 0; }
	TARGET=localhost:$PORT
fi
now() { date +%s.%N; }
i=0
: >"$TMPD/times"
while [ $i -lt "$RUNS" ]; do
	T="tmux -L xtop-bench-cap-$$-$i -f /dev/null"
	$T new-session -d -x 120 -y 40 "env TERM=screen-256color $XTOP --attach $TARGET --duration $DUR --logdir $TMPD/log$i; sleep 600"
	until $T capture-pane -p 2>/dev/null | grep -q "attached to"; do sleep 0.05; done
	t0=$(now)
	$T send-keys c
	n=0
	until $T capture-pane -p 2>/dev/null | grep -q "captured 1 of 1"; do
		sleep 0.02
		n=$((n + 1))
		[ $n -lt 30000 ] || break
	done
	t1=$(now)
	echo "$t0 $t1 $(cat "$TMPD"/log$i/plugins/profile/*/*.xplane.pb 2>/dev/null | wc -c)" >>"$TMPD/times"
	$T send-keys q
	sleep 0.3
	$T kill-server >/dev/null 2>&1 || true
	rm -rf "$TMPD/log$i"
	i=$((i + 1))
done
SIZE=$( [ -n "$F" ] && stat -L -c %s "$F" || sort -n -k3 "$TMPD/times" | awk '{ s[++n] = $3 } END { print s[int((n + 1) / 2)] + 0 }')
sort -k1 "$TMPD/times" | awk -v d="$DUR" -v size="$SIZE" -v live="$([ -n "$F" ] || echo 1)" '
	{ x[++n] = $2 - $1 - d / 1000 }
	END {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
		m = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
		if (live)
			printf "  %.1f MB capture of %d ms: end of the capture to its first frame  %.3f s (median of %d, min %.3f, max %.3f; the workload'"'"'s profiler collecting and sending its trace included)\n", size / 1e6, d, m, n, x[1], x[n]
		else
			printf "  %.1f MB profile: end of the capture to its first frame  %.3f s (median of %d; the XSpace comes back in the RPC response, is saved, checked and loaded)\n", size / 1e6, m, n
	}'
