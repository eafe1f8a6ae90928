#!/bin/sh
# first_frame.sh FILE [RUNS]: the viewer (`xtop FILE` in tmux, 120x40) from
# the start of the process to its first frame, to the first frame that
# shows events, to the end of decoding and to the analyses' arrival
# (XTOP_FRAME_LOG, src/ui/loading.c); medians of RUNS runs.
set -eu
O=${O:-build}
XTOP=$O/xtop
F=$1
RUNS=${2:-3}
command -v tmux >/dev/null 2>&1 || { echo "  (skipped: tmux not installed)"; exit 0; }
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/xtop-bench-ff.XXXXXX")
# A server per run: a killed one may still hold its socket when the next
# starts ("server exited unexpectedly").
T="tmux -L xtop-bench-ff-$$-0 -f /dev/null"
trap '$T kill-server >/dev/null 2>&1 || true; rm -rf "$TMPD"' EXIT
cat "$F" >/dev/null
i=0
while [ $i -lt "$RUNS" ]; do
	T="tmux -L xtop-bench-ff-$$-$i -f /dev/null"
	log=$TMPD/frames.$i
	$T new-session -d -x 120 -y 40 "env TERM=screen-256color XTOP_FRAME_LOG=$log $XTOP $F; sleep 60"
	n=0
	until grep -q "^ready \|^failed " "$log" 2>/dev/null; do
		sleep 0.1
		n=$((n + 1))
		[ $n -lt 3000 ] || break
	done
	$T send-keys q
	sleep 0.3
	$T kill-server >/dev/null 2>&1 || true
	i=$((i + 1))
done
cat "$TMPD"/frames.* | awk -v n="$RUNS" '
	{ v[$1, ++c[$1]] = $2 }
	function med(k,   i, j, t, m, a) {
		m = c[k]
		if (!m) return "-"
		for (i = 1; i <= m; i++) a[i] = v[k, i]
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return sprintf("%.3f", m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2)
	}
	END {
		printf "  first frame (progress bar, lines as they come)  %s s\n", med("first_frame")
		printf "  first frame showing events                      %s s\n", med("first_events")
		printf "  all lines decoded                               %s s\n", med("decoded")
		printf "  analyses in (op profile, steps, memory)         %s s\n", med("ready")
		printf "  (seconds since the process started; median of %d runs)\n", n
	}'
