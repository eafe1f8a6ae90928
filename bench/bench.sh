#!/bin/sh
# make bench: every figure of docs/performance.md, measured in one run.
#
# Inputs (made once under $O/bench/, never committed):
#   - the real fixtures in ../shared/fixtures, and the JAX-on-H100
#     transformer of tests/fixtures/h100 (with command buffers), scaled to
#     about 1 GB with `xtop-gen --scale` (the run repeated: every line's
#     events again, shifted by the profile's span, identifiers renumbered);
#   - generated profiles: xtop-gen --kind tpu|gpu --size 1G --seed 42;
#   - with BENCH_BIG=1 (the default), a generated profile over 4 GiB.
# Per file: `xtop report --json FILE` (wall, CPU = user + sys, peak RSS,
# page faults) paired run by run with the libprotobuf yardstick
# (bench/pb_parse.cc: Debian's libprotobuf, generated classes, arena),
# medians of BENCH_RUNS runs, so every figure is also a ratio measured
# beside it; and with the floor (bench/bare_decode.c: one core reading
# every event's fields, nothing else), whose time is the machine's, not the
# kernel's: FLOOR_S is it, X/FLOOR2 xtop's wall over half of it (two cores
# each reading half the events, the best any reader of every event could
# do here). Then the viewer: time to the first frame and to the analyses,
# frame times at 32 M events, window queries, and capture to first frame;
# first of all, the C tracing API's cost per call (bench_trace.c).
#
#   BENCH_RUNS=3          runs per file (medians; RSS is the largest run)
#   BENCH_FILES="..."     labels to run (default: all; see LABELS below)
#   BENCH_TARGET=1000000000  bytes each scaled fixture aims at
#   BENCH_BIG=1           also open a > 4 GiB profile (0 skips it)
#   BENCH_DIR=$O/bench    where the inputs are made and kept
#   BENCH_IDLE=5          seconds of quiet before each of RUNS more xtop runs
#                         per file (IDLE_S: a run that follows no other
#                         program's, as when a user opens a file; 0 skips)
# Timings are with the file in the page cache (the usual case right after a
# capture or a copy), in a state made the same way every time: the file is
# dropped from the cache (dd iflag=nocache) and read back by one xtop run,
# which leaves it in small page-cache folios. (How the cache was filled
# changes what mapping the file costs: a file that a plain sequential read
# or one large write left in 2 MiB folios maps and unmaps in a millisecond,
# against 0.12 CPU-s per GB in small folios; docs/performance.md.)
# Wall-clock figures need a quiet machine.
set -eu
O=${O:-build}
XTOP=$O/xtop
GEN=$O/xtop-gen
PB=$O/bench/pb_parse
FLOOR=$O/bench/bare_decode
DIR=${BENCH_DIR:-$O/bench}
RUNS=${BENCH_RUNS:-3}
IDLE=${BENCH_IDLE:-5}
TARGET=${BENCH_TARGET:-1000000000}
FIX=../shared/fixtures
LABELS="tpu-v6e tf-v100 rocm-gemm rocm-elementwise rocm-attention rocm-conv h100-tfm gen-tpu gen-gpu"
FILES=${BENCH_FILES:-$LABELS}
mkdir -p "$DIR"

source_of() {
	case $1 in
	tpu-v6e) echo "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb" ;;
	tf-v100) echo "$FIX/tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb" ;;
	rocm-gemm) echo "$FIX/jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb" ;;
	rocm-elementwise) echo "$FIX/jax-rocm-mi300x-jax08_elementwise/tw003.xplane.pb" ;;
	rocm-attention) echo "$FIX/jax-rocm-mi300x-jax08_attention/tw003.xplane.pb" ;;
	rocm-conv) ls "$FIX"/jax-rocm-mi300x-conv-legacy/*.xplane.pb ;;
	h100-tfm) echo "tests/fixtures/h100/jax-h100-tfm-cb.xplane.pb.gz" ;;
	esac
}

# Makes $DIR/LABEL.xplane.pb once (again when xtop-gen is newer: a scale
# by an older one may differ, as device_offset_ps once did) and prints its
# path. A fixture's copies are K times its lines' bytes plus its metadata
# once, so K comes from the sizes of one and of ten copies.
prepare() {
	f="$DIR/$1.xplane.pb"
	if [ ! -s "$f" ] || [ "$GEN" -nt "$f" ]; then
		case $1 in
		gen-tpu) $GEN --kind tpu --size 1G --seed 42 -o "$f" >&2 ;;
		gen-gpu) $GEN --kind gpu --size 1G --seed 42 -o "$f" >&2 ;;
		gen-big) $GEN --kind tpu --size 4400M --seed 42 -o "$f" >&2 ;;
		*)
			src=$(source_of "$1")
			[ -s "$src" ] || return 1
			$GEN --scale "$src" 10 -o "$DIR/probe.pb" >/dev/null
			$GEN --scale "$src" 1 -o "$DIR/probe1.pb" >/dev/null # gzip in, plain out
			s1=$(stat -L -c %s "$DIR/probe1.pb")
			rm -f "$DIR/probe1.pb"
			s10=$(stat -L -c %s "$DIR/probe.pb")
			rm -f "$DIR/probe.pb"
			k=$(( (TARGET - s1 + (s10 - s1) / 9 - 1) / ((s10 - s1) / 9) ))
			[ "$k" -ge 1 ] || k=1
			$GEN --scale "$src" "$k" -o "$f" >&2
			;;
		esac
	fi
	echo "$f"
}

echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), kernel $(uname -r)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -x "$O/bench_trace" ]; then
	echo "C tracing API, $O/bench_trace:"
	"$O/bench_trace"
	echo
fi
echo "xtop: $XTOP report --json FILE >/dev/null; libprotobuf: $PB FILE (parse only); floor: $FLOOR FILE; median of $RUNS paired runs, warm page cache (as xtop reads it)"
echo
printf '%-17s %7s %8s %6s %6s %5s %6s %6s %6s %8s %7s %7s %6s %8s %7s %7s %8s %6s\n' \
	FILE SIZE_MB EVENTS_M WALL_S CPU_S USR_S SYS_S RSS/SZ GB/S FAULTS_K WALL/GB CPU/GB PB_S PB_RSS_G SPEEDUP FLOOR_S X/FLOOR2 IDLE_S

measure() {
	label=$1 f=$2
	size=$(stat -L -c %s "$f")
	# The page cache as xtop's own read of the file leaves it (see above).
	dd if="$f" iflag=nocache count=0 status=none
	events=$($XTOP report --json "$f" | sed -n 's/^{"events":\([0-9]*\),.*/\1/p')
	: >"$DIR/x.times"
	: >"$DIR/p.times"
	: >"$DIR/i.times"
	: >"$DIR/f.times"
	i=0
	while [ $i -lt "$RUNS" ]; do
		/usr/bin/time -f "%e %U %S %M %R" -o "$DIR/t1" "$XTOP" report --json "$f" >/dev/null
		cat "$DIR/t1" >>"$DIR/x.times"
		if [ -x "$PB" ] && [ "$size" -lt 2147483648 ]; then
			/usr/bin/time -f "%M" -o "$DIR/t2" "$PB" "$f" >"$DIR/p.out"
			echo "$(sed -n 's/.*parse_s \([0-9.]*\).*/\1/p' "$DIR/p.out") $(cat "$DIR/t2")" >>"$DIR/p.times"
		fi
		if [ -x "$FLOOR" ]; then
			"$FLOOR" "$f" | sed -n 's/.*read_s \([0-9.]*\).*/\1/p' >>"$DIR/f.times"
		fi
		i=$((i + 1))
	done
	i=0
	while [ "$IDLE" -gt 0 ] && [ $i -lt "$RUNS" ]; do
		sleep "$IDLE"
		/usr/bin/time -f "%e" -o "$DIR/t1" "$XTOP" report --json "$f" >/dev/null
		cat "$DIR/t1" >>"$DIR/i.times"
		i=$((i + 1))
	done
	awk -v size="$size" -v name="$label" -v ev="$events" -v n="$RUNS" '
		function median(a, k,   i, j, t) {
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
				if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
		}
		FILENAME ~ /x.times$/ { nx++; w[nx] = $1; u[nx] = $2; s[nx] = $3; c[nx] = $2 + $3
			if ($4 > rss) rss = $4; f[nx] = $5 }
		FILENAME ~ /p.times$/ { np++; pw[np] = $1; if ($2 > prss) prss = $2 }
		FILENAME ~ /i.times$/ { ni++; iw[ni] = $1 }
		FILENAME ~ /f.times$/ { nf++; fw[nf] = $1 }
		END {
			gb = size / 1e9
			wall = median(w, nx); cpu = median(c, nx)
			printf "%-17.17s %7.1f %8.2f %6.3f %6.2f %5.2f %6.2f %6.2f %6.2f %8.0f %7.3f %7.2f", name,
			       size / 1e6, ev / 1e6, wall, cpu, median(u, nx), median(s, nx),
			       rss * 1024 / size, (wall > 0 ? gb / wall : 0), median(f, nx) / 1e3,
			       wall / gb, cpu / gb
			if (np) { pws = median(pw, np)
				printf " %6.2f %8.2f %6.1fx", pws, prss / 1048576, (wall > 0 ? pws / wall : 0) }
			else printf " %6s %8s %7s", "-", "-", "-"
			if (nf) { fws = median(fw, nf)
				printf " %7.3f %7.2fx", fws, (fws > 0 ? wall / (fws / 2) : 0) }
			else printf " %7s %8s", "-", "-"
			if (ni) printf " %6.3f\n", median(iw, ni); else printf " %6s\n", "-"
		}' "$DIR/x.times" "$DIR/p.times" "$DIR/f.times" "$DIR/i.times"
}

for label in $FILES; do
	if f=$(prepare "$label"); then
		measure "$label" "$f"
	else
		printf '%-17s (skipped: %s not found)\n' "$label" "$(source_of "$label")"
	fi
done

if [ "${BENCH_BIG:-1}" = 1 ]; then
	f=$(prepare gen-big)
	echo
	echo "a profile over 4 GiB ($(stat -L -c %s "$f") bytes; libprotobuf cannot parse it at all):"
	measure gen-big "$f"
fi

TL=$(prepare tpu-v6e 2>/dev/null || true)
if [ -n "$TL" ]; then
	echo
	echo "viewer: xtop $(basename "$TL") in tmux:"
	sh bench/first_frame.sh "$TL" "$RUNS"
	echo
	echo "timeline frame time (the viewer's drawing code, 50x200 screen), $O/bench_frame:"
	$O/bench_frame "$TL" 50x200
	echo
	echo "window queries (the timeline's per-frame question), $O/bench_window:"
	$O/bench_window "$TL"
fi
# A GPU-shaped file whose events are in two big lines: a line joins the
# timeline when it is complete, so its first events come later.
GL=$(prepare h100-tfm 2>/dev/null || true)
if [ -n "$GL" ]; then
	echo
	echo "viewer: xtop $(basename "$GL") in tmux (its events in two lines of millions):"
	sh bench/first_frame.sh "$GL" "$RUNS"
fi
echo
echo "capture to first frame (the viewer attached to a real gRPC profiler server):"
if [ -d "$FIX" ]; then
	sh bench/capture_frame.sh "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb" "$RUNS"
fi
[ -n "$TL" ] && sh bench/capture_frame.sh "$TL" "$RUNS"
echo
echo "shape of generated and real profiles, $O/bench_shape (docs/performance.md, Shape):"
G=$DIR/shape
mkdir -p "$G"
[ -s "$G/gen-tpu.pb" ] || $GEN --kind tpu --events 300000 --seed 42 -o "$G/gen-tpu.pb" >/dev/null
[ -s "$G/gen-gpu.pb" ] || $GEN --kind gpu --events 300000 --seed 42 -o "$G/gen-gpu.pb" >/dev/null
if [ -d "$FIX" ]; then
	$O/bench_shape "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb" "$G/gen-tpu.pb" \
		"$FIX/jax-rocm-mi300x-jax08_attention/tw003.xplane.pb" \
		"$FIX/tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb" "$G/gen-gpu.pb"
else
	$O/bench_shape "$G/gen-tpu.pb" "$G/gen-gpu.pb"
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
