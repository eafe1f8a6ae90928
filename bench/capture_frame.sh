#!/bin/sh
# capture_frame.sh FILE [RUNS]: the viewer attached to a real gRPC profiler
# server (tests/capture/fake_profiler_server.py, which returns FILE as the
# captured XSpace), from the end of a capture (c, then the capture's
# duration) to the first frame that shows the captured profile (the status
# line says "captured"); polled every 20 ms, medians of RUNS runs.
set -eu
O=${O:-build}
XTOP=$O/xtop
PY=/usr/bin/python3
F=$1
RUNS=${2:-3}
DUR=500
command -v tmux >/dev/null 2>&1 || { echo "  (skipped: tmux not installed)"; exit 0; }
$PY -c 'import grpc' 2>/dev/null || { echo "  (skipped: python3-grpcio not installed)"; exit 0; }
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/xtop-bench-cap.XXXXXX")
# A server per run: a killed one may still hold its socket when the next
# starts ("server exited unexpectedly").
T="tmux -L xtop-bench-cap-$$-0 -f /dev/null"
$PY tests/capture/fake_profiler_server.py --xspace "$F" --mode auto >"$TMPD/srv.out" 2>"$TMPD/srv.err" &
SPID=$!
trap '$T kill-server >/dev/null 2>&1 || true; kill $SPID 2>/dev/null || true; rm -rf "$TMPD"' EXIT
PORT=
for _ in $(seq 1 600); do
	PORT=$(sed -n 's/^PORT //p' "$TMPD/srv.out")
	[ -n "$PORT" ] && break
	sleep 0.1
done
[ -n "$PORT" ] || { echo "  (skipped: the profiler server did not start)"; exit 0; }
now() { date +%s.%N; }
i=0
: >"$TMPD/times"
while [ $i -lt "$RUNS" ]; do
	T="tmux -L xtop-bench-cap-$$-$i -f /dev/null"
	$T new-session -d -x 120 -y 40 "env TERM=screen-256color $XTOP --attach localhost:$PORT --duration $DUR --logdir $TMPD/log$i; sleep 600"
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
	echo "$t0 $t1" >>"$TMPD/times"
	$T send-keys q
	sleep 0.3
	$T kill-server >/dev/null 2>&1 || true
	rm -rf "$TMPD/log$i"
	i=$((i + 1))
done
sort -k1 "$TMPD/times" | awk -v d="$DUR" -v size="$(stat -L -c %s "$F")" '
	{ x[++n] = $2 - $1 - d / 1000 }
	END {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
		m = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
		printf "  %.1f MB profile: end of the capture to its first frame  %.3f s (median of %d; the XSpace comes back in the RPC response, is saved, checked and loaded)\n", size / 1e6, m, n
	}'
