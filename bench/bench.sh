#!/bin/sh
# make bench: the C API's cost per call (bench_trace.c), then wall time and
# peak RSS of `xtop report` on generated profiles shaped like the real
# fixtures, and on the real fixtures themselves.
#   BENCH_SIZES="1G"   sizes to generate (add 5G to check >4 GiB files open)
#   BENCH_RUNS=3       runs per file (the median is reported)
# Files are generated once under build/bench/ and reused. Timings are with
# the file in the page cache (the usual case right after a capture or copy).
set -eu
O=${O:-build}
XTOP=$O/xtop
GEN=$O/xtop-gen
DIR=$O/bench
SIZES=${BENCH_SIZES:-1G}
RUNS=${BENCH_RUNS:-3}
mkdir -p "$DIR"

echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
# The C API's cost first (a second, no files needed).
if [ -x "$O/bench_trace" ]; then
	echo "command: $O/bench_trace"
	"$O/bench_trace"
	echo
fi
echo "command: $XTOP report PATH >/dev/null   (median of $RUNS runs, warm page cache)"
printf '%-48s %10s %12s %9s %10s %12s %9s\n' FILE SIZE EVENTS WALL_S GB_PER_S PEAK_RSS_MB RSS/SIZE

measure() {
	f=$1
	size=$(stat -L -c %s "$f")
	cat "$f" >/dev/null # warm the page cache
	events=$($XTOP report --json "$f" | sed -n 's/^{"events":\([0-9]*\),.*/\1/p')
	i=0
	: >"$DIR/times"
	# Small files run 50 times per measurement: /usr/bin/time counts 10 ms.
	reps=1
	[ "$size" -lt 52428800 ] && reps=50
	while [ $i -lt "$RUNS" ]; do
		/usr/bin/time -f "%e %M" -o "$DIR/t1" sh -c \
			'n=0; while [ $n -lt '"$reps"' ]; do "$0" report "$1" >/dev/null; n=$((n+1)); done' \
			"$XTOP" "$f"
		cat "$DIR/t1" >>"$DIR/times"
		i=$((i + 1))
	done
	sort -n "$DIR/times" | awk -v size="$size" -v name="$(basename "$(dirname "$f")")/$(basename "$f")" -v ev="$events" -v n="$RUNS" -v reps="$reps" '
		{ w[NR] = $1 / reps; r[NR] = $2 }
		END {
			m = int((n + 1) / 2); wall = w[m]; rss = 0
			for (i = 1; i <= n; i++) if (r[i] > rss) rss = r[i]
			printf "%-48.48s %9.1fM %12d %9.3f %10.2f %12.1f %9.2f\n", name, size / 1048576, ev, wall,
			       (wall > 0 ? size / wall / 1e9 : 0), rss / 1024, rss * 1024 / size
		}'
}

for s in $SIZES; do
	f="$DIR/tpu-$s.xplane.pb"
	if [ ! -s "$f" ]; then
		echo "generating $f ..." >&2
		$GEN --kind tpu --size "$s" --seed 42 -o "$f" >/dev/null
	fi
	measure "$f"
	g="$DIR/gpu-$s.xplane.pb"
	if [ "$s" = 1G ] && [ ! -s "$g" ]; then
		echo "generating $g ..." >&2
		$GEN --kind gpu --size "$s" --seed 42 -o "$g" >/dev/null
	fi
	[ -s "$g" ] && measure "$g"
done
FIX=${XTOP_FIXTURES:-../shared/fixtures}
if [ -d "$FIX" ]; then
	for f in "$FIX"/*/*.xplane.pb; do
		case "$f" in */corrupt/*) continue ;; esac
		measure "$f"
	done
fi

echo
echo "window queries (the timeline's per-frame question), $O/bench_window on the 1G TPU profile:"
[ -s "$DIR/tpu-1G.xplane.pb" ] && $O/bench_window "$DIR/tpu-1G.xplane.pb"

echo
echo "timeline frame time (the viewer's drawing code, 50x200 screen), $O/bench_frame on a 10M-event TPU profile:"
f10="$DIR/tpu-10M-events.xplane.pb"
[ -s "$f10" ] || $GEN --kind tpu --events 10M --seed 3 -o "$f10" >/dev/null
$O/bench_frame "$f10" 50x200
