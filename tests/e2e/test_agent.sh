#!/bin/sh
# The xtop agent end to end: a native workload (tests/agent/workload.c)
# started under `xtop run` loads fake PJRT plugins (tests/agent/fake_pjrt.c,
# serving a recorded real profile with XLA's trailing NUL) and annotates its
# work with the C API; xtop captures it by PID, and the saved profile is
# checked with protobuf's own parser (tests/agent/check_space.py). Then the
# failure paths: another user, foreign and stale sockets, a workload killed
# mid-capture, clients that vanish mid-request, a device tracer that fails.
. tests/e2e/lib.sh

AG=$O/tests/agent
W=$AG/workload
FAKE=$(pwd)/$AG/fake_pjrt.so
PEER="$PY tests/agent/agent_peer.py"
for f in "$W" "$AG/workload-static" "$AG/idle" "$FAKE" "$O/libxtop-agent.so"; do
	if [ ! -e "$f" ]; then
		fail "agent" "$f is not built (make tests)"
		exit 0
	fi
done
export XDG_RUNTIME_DIR="$TMP/rt"
mkdir -m 700 "$XDG_RUNTIME_DIR"
SD="$XDG_RUNTIME_DIR/xtop"
# What the fake plugins serve: a recorded real profile (JAX on MI300X
# from ../shared, else the project's own JAX-on-H100 scan, which has no
# step markers or device step lines either, so that the C API's markers
# are what makes the steps), and a generated TPU profile.
if have_fixtures; then
	FX="$FIX/jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb"
else
	gzip -dc tests/fixtures/h100/jax-h100-scan-nocb.xplane.pb.gz >"$TMP/gpu.xplane.pb"
	FX="$TMP/gpu.xplane.pb"
fi
$GEN --kind tpu --events 2000 --seed 3 -o "$TMP/tpu.xplane.pb" >/dev/null 2>&1
cp "$FAKE" "$TMP/fake_b.so"
T="tmux -L xtop-agent-$$ -f /dev/null"
PIDS=""
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	$T kill-server 2>/dev/null
	chmod -R u+rwX "$TMP" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# run_w ARGS...: starts `xtop run -- ARGS` in the background; RP is xtop
# run's PID, WP the workload's (from the line xtop run prints); waits for
# the agent's socket. PRELOAD, when set, is xtop run's LD_PRELOAD.
run_w() { # RUN_XTOP: an xtop whose path may hold spaces, instead of $XTOP
	# The last run's stderr goes first: the background job truncates it
	# only once it starts, and the loop below could read the last
	# workload's PID (killed, its socket left behind) before that.
	rm -f "$TMP/run.err" "$TMP/run.out"
	if [ -n "${RUN_XTOP:-}" ]; then
		"$RUN_XTOP" run -- "$@" >"$TMP/run.out" 2>"$TMP/run.err" &
	elif [ -n "${PRELOAD:-}" ]; then
		env LD_PRELOAD="$PRELOAD" $XTOP run -- "$@" >"$TMP/run.out" 2>"$TMP/run.err" &
	else
		# shellcheck disable=SC2086 # RUN_OPTS: options of xtop run, split
		$XTOP run ${RUN_OPTS:-} -- "$@" >"$TMP/run.out" 2>"$TMP/run.err" &
	fi
	RP=$!
	PIDS="$PIDS $RP"
	n=0
	WP=
	while [ -z "$WP" ] && [ $n -lt 600 ]; do
		WP=$(sed -n 's/^xtop: PID \([0-9]*\) runs .*/\1/p' "$TMP/run.err" 2>/dev/null)
		[ -n "$WP" ] || sleep 0.05
		n=$((n + 1))
	done
	[ -n "$WP" ] || return 1
	PIDS="$PIDS $WP"
	while [ ! -S "$SD/agent-$WP.sock" ] && [ $n -lt 600 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	[ -S "$SD/agent-$WP.sock" ]
}

events_of() { # events_of FILE: the events xtop reads in it
	$XTOP report --json "$1" | sed -n 's/^{"events":\([0-9]*\),.*/\1/p'
}

# 1. xtop run: the PID line, the same process, LD_PRELOAD appended.
PRELOAD="$(pwd)/$O/libxtop-trace.so"
if run_w "$W" --plugin "$FAKE,$FX" --log "$TMP/plugin.log"; then
	ok "xtop run starts the workload with the agent listening"
else
	fail "xtop run" "no socket for PID $WP: $(cat "$TMP/run.err")"
fi
PRELOAD=
if grep -q "PID $WP runs .*workload with the xtop agent (capture: xtop capture $WP" "$TMP/run.err" &&
	[ "$(readlink "/proc/$WP/exe")" = "$(cd "$(dirname "$W")" && pwd)/workload" ] &&
	[ "$(awk '{print $4}' "/proc/$WP/stat")" = "$RP" ]; then
	ok "xtop run prints the workload's PID on stderr and waits for it"
else
	fail "xtop run PID" "$(cat "$TMP/run.err"); exe $(readlink "/proc/$WP/exe")"
fi
pre=$(tr '\0' '\n' <"/proc/$WP/environ" | sed -n 's/^LD_PRELOAD=//p')
case "$pre" in
"$(pwd)/$O/libxtop-trace.so:"*/libxtop-agent.so) ok "LD_PRELOAD keeps what was there and appends the agent" ;;
*) fail "LD_PRELOAD" "'$pre'" ;;
esac
if [ "$(stat -c %a "$SD")" = 700 ] && [ "$(stat -c %a "$SD/agent-$WP.sock")" = 600 ]; then
	ok "the socket is $SD/agent-PID.sock, in a 0700 directory, itself 0600"
else
	fail "socket modes" "$(ls -la "$SD")"
fi
if [ "$(grep -lx xtop-agent /proc/$WP/task/*/comm 2>/dev/null | wc -l)" -eq 1 ]; then
	ok "the agent runs one thread (xtop-agent)"
else
	fail "agent thread" "$(cat /proc/$WP/task/*/comm | tr '\n' ' ')"
fi

# 2. Capture by PID: the fixture's events plus the C API's annotations.
if $XTOP capture --duration 400 --logdir "$TMP/logA" "$WP" >"$TMP/out" 2>"$TMP/err"; then
	f=$(sed -n 's/^saved \([^ ]*\) .*/\1/p' "$TMP/out")
	fx_ev=$(events_of "$FX")
	got=$(events_of "$f")
	chk=$($PY tests/agent/check_space.py "$f" --fixture "$FX" --annotations 2>&1)
	ann=$(echo "$chk" | sed -n 's/^OK [0-9]* fixture events, \([0-9]*\) annotation.*/\1/p')
	case "$chk" in
	OK*)
		if [ -n "$ann" ] && [ "$got" -eq $((fx_ev + ann)) ]; then
			ok "capture PID: $got events = the plugin's $fx_ev + $ann from the C API, all in $(basename "$f")"
		else
			fail "capture PID" "xtop reads $got events, want $fx_ev + $ann"
		fi ;;
	*) fail "capture PID" "$chk" ;;
	esac
	if $XTOP report --json "$f" | grep -q '"steps_source":"host"' &&
		$XTOP report "$f" | grep -q "from host step markers"; then
		ok "xtop_step_begin markers are the steps xtop shows"
	else
		fail "steps" "$($XTOP report "$f" | grep -i steps)"
	fi
	if grep -q "^create .*" "$TMP/plugin.log" && grep -q '^collect' "$TMP/plugin.log" &&
		tail -n 1 "$TMP/plugin.log" | grep -q '^destroy'; then
		ok "the plugin saw create, start, stop, collect, destroy"
	else
		fail "plugin lifecycle" "$(tr '\n' ' ' <"$TMP/plugin.log")"
	fi
else
	fail "capture PID" "$(cat "$TMP/err")"
fi

# An agent target needs no gRPC (it is loaded only for profiler-service
# targets): capture and top work with none to load.
if XTOP_GRPC_LIB=/nonexistent/libgrpc.so $XTOP capture --duration 200 --logdir "$TMP/logNoGrpc" \
	"$WP" >"$TMP/out" 2>"$TMP/err" && grep -q '^saved ' "$TMP/out"; then
	ok "capture PID of an agent needs no gRPC library"
else
	fail "agent capture without gRPC" "$(cat "$TMP/err")"
fi
if XTOP_GRPC_LIB=/nonexistent/libgrpc.so timeout 120 $XTOP top --batch 1 --top 0 --duration 50 \
	"$WP" >"$TMP/top.txt" 2>"$TMP/err" && grep -q 'refresh 1 of 1' "$TMP/top.txt" &&
	grep -q 'SHARE OP' "$TMP/top.txt"; then
	ok "xtop top of an agent needs no gRPC library"
else
	fail "agent top without gRPC" "$(head -n 3 "$TMP/top.txt" | tr '\n' '|') $(cat "$TMP/err")"
fi

# Names that are not clean UTF-8 (a thread name the kernel cut inside a
# character, a span name cut at 1024 bytes inside one, bytes of no
# character): protobuf's parsers reject a whole XSpace over one such
# string, so the capture mends them; XProf and TensorBoard can open it.
run_w "$W" --odd-names || fail "odd names" "no socket"
if $XTOP capture --duration 300 --logdir "$TMP/logU" "$WP" >"$TMP/out" 2>"$TMP/err"; then
	f=$(sed -n 's/^saved \([^ ]*\) .*/\1/p' "$TMP/out")
	chk=$($PY tests/agent/check_space.py "$f" --annotations --odd-names 2>&1)
	case "$chk" in
	OK*) ok "names that are not UTF-8 are mended: protobuf parses the capture ($chk)" ;;
	*) fail "odd names" "$chk" ;;
	esac
else
	fail "odd names" "$(cat "$TMP/err")"
fi
kill -9 "$WP"

# Spans nested past the library's 128 levels, with no PJRT plugin: the
# capture is kept and says the C API dropped events; no device tracer is
# blamed (there is none).
run_w "$W" --deep || fail "deep" "no socket"
if $XTOP capture --duration 300 --logdir "$TMP/logP" "$WP" >"$TMP/out" 2>"$TMP/err" &&
	grep -q "warning: PID $WP: not every C API event is in the profile (xtop trace: [0-9]* events dropped by 1 thread (past the library's bounds: memory, or spans nested over 128 deep); xtop trace: thread [0-9]* (xt-deep) dropped [0-9]*)" "$TMP/err" &&
	! grep -q "device tracer" "$TMP/err"; then
	ok "events dropped past the nesting bound: said so, no device tracer blamed"
else
	fail "deep spans" "$(cat "$TMP/err")"
fi
kill -9 "$WP"

# Children forked while captures collect (the agent then holds the lock
# its registries' destructors take at exit) still exit. (Under ASan, no
# leak check in them: LeakSanitizer in a child forked from many threads
# looks for threads that are not there, and takes seconds.)
ASAN_SAVE=${ASAN_OPTIONS-}
export ASAN_OPTIONS="detect_leaks=0${ASAN_SAVE:+:$ASAN_SAVE}"
run_w "$AG/workload-static" --forker || fail "forker" "no socket"
if [ -n "$ASAN_SAVE" ]; then ASAN_OPTIONS=$ASAN_SAVE; else unset ASAN_OPTIONS; fi
for k in 1 2 3 4 5 6; do
	$XTOP capture --duration 200 --logdir "$TMP/logK" "$WP" >/dev/null 2>&1
done
sleep 10.5
if ! grep -q HUNG "$TMP/run.err" && kill -0 "$WP" 2>/dev/null; then
	ok "children forked during captures exit (no lock held across fork)"
else
	fail "fork during capture" "$(grep HUNG "$TMP/run.err" | head -n 2)"
fi
kill -9 "$WP"

# 3. Two plugins in one process give one XSpace with both plugins' planes;
# the header's size-first protocol works too.
run_w "$W" --plugin "$FAKE,$FX" --plugin "$TMP/fake_b.so,$TMP/tpu.xplane.pb,copy" || fail "two plugins" "no socket"
if $XTOP capture --duration 300 --logdir "$TMP/logB" "$WP" >"$TMP/out" 2>"$TMP/err"; then
	f=$(sed -n 's/^saved \([^ ]*\) .*/\1/p' "$TMP/out")
	chk=$($PY tests/agent/check_space.py "$f" --fixture "$FX" --fixture "$TMP/tpu.xplane.pb" --annotations 2>&1)
	case "$chk" in
	OK*) ok "two plugins (one returning its own buffer, one filling ours): one XSpace, $chk" ;;
	*) fail "two plugins" "$chk" ;;
	esac
else
	fail "two plugins" "$(cat "$TMP/err")"
fi
kill -9 "$WP"

# 3b. A plugin's host planes apart, as the CUDA plugin makes them (an agent
# capture of JAX on an H100, saved before xtop merged them): XLA's TraceMe
# plane, the CUPTI API plane, an empty NVTX plane. The capture is saved as a
# ProfilerSession saves one: one /host:CPU plane, a thread's launch calls on
# its line.
gzip -dc tests/fixtures/h100/agent-h100-mlp-cb.xplane.pb.gz >"$TMP/cupti.xplane.pb"
run_w "$W" --plugin "$FAKE,$TMP/cupti.xplane.pb" || fail "host planes" "no socket"
if $XTOP capture --duration 300 --logdir "$TMP/logC" "$WP" >"$TMP/out" 2>"$TMP/err"; then
	f=$(sed -n 's/^saved \([^ ]*\) .*/\1/p' "$TMP/out")
	chk=$($PY tests/agent/check_space.py "$f" --fixture "$TMP/cupti.xplane.pb" --annotations 2>&1)
	case "$chk" in
	OK*) ok "the CUDA plugin's host planes saved as one /host:CPU, the C API's lines in it: $chk" ;;
	*) fail "host planes" "$chk" ;;
	esac
else
	fail "host planes" "$(cat "$TMP/err")"
fi
kill -9 "$WP"

# 4. libxtop-trace linked statically: it registers with the agent itself.
run_w "$AG/workload-static" || fail "static" "no socket"
if $XTOP capture --duration 300 --logdir "$TMP/logS" "$WP" >"$TMP/out" 2>"$TMP/err"; then
	f=$(sed -n 's/^saved \([^ ]*\) .*/\1/p' "$TMP/out")
	chk=$($PY tests/agent/check_space.py "$f" --annotations 2>&1)
	case "$chk" in
	OK*) ok "the static libxtop-trace, no PJRT plugin: $chk" ;;
	*) fail "static" "$chk" ;;
	esac
else
	fail "static" "$(cat "$TMP/err")"
fi
[ -s "$TMP/run.out" ] && fail "stdout" "the agent or workload wrote: $(head -c 200 "$TMP/run.out")" ||
	ok "nothing on the workload's stdout"
kill -9 "$WP"

# A library holding its own static libxtop-trace, loaded and unloaded in
# a loop: its copy takes its registry back as it goes, and captures (one
# while it comes and goes) neither crash the program nor lose the main
# program's copy.
for f in "$AG/dlcycle" "$AG/libdlcycle.so"; do [ -e "$f" ] || fail "dlcycle" "$f is not built"; done
run_w "$AG/dlcycle" "$(pwd)/$AG/libdlcycle.so" || fail "dlcycle" "no socket"
good=0
for k in 1 2 3 4; do
	$XTOP capture --duration 200 --logdir "$TMP/logD" "$WP" >"$TMP/out" 2>"$TMP/err" &&
		good=$((good + 1))
done
f=$(ls "$TMP"/logD/plugins/profile/*/*.xplane.pb 2>/dev/null | tail -n 1)
if [ "$good" -eq 4 ] && kill -0 "$WP" 2>/dev/null &&
	[ -n "$f" ] && $XTOP report --json "$f" | grep -q '"events":[1-9]'; then
	ok "a library with its own libxtop-trace, unloaded again and again: 4 captures, the program lives"
else
	fail "dlclose'd copy" "$good of 4 captures; $(cat "$TMP/err"); $(tail -n 2 "$TMP/run.err")"
fi
kill -9 "$WP" 2>/dev/null

# 5. Nothing to profile until the plugin is loaded (as JAX loads it late).
run_w "$AG/idle" --plugin "$FAKE,$FX" --after 2000 || fail "late plugin" "no socket"
expect_error "nothing to profile yet: one line, exit 1" 1 "PID $WP: cannot start: nothing to profile yet" \
	$XTOP capture --duration 200 --logdir "$TMP/logN" "$WP"
sleep 2.2
if $XTOP capture --duration 200 --logdir "$TMP/logN" "$WP" >"$TMP/out" 2>"$TMP/err" &&
	[ "$(events_of "$(sed -n 's/^saved \([^ ]*\) .*/\1/p' "$TMP/out")")" -eq "$(events_of "$FX")" ]; then
	ok "a plugin loaded later is found by the next capture"
else
	fail "late plugin" "$(cat "$TMP/err")"
fi
kill -9 "$WP"

# 6. A device tracer that fails: said so; nothing else captured: not kept.
run_w "$W" --plugin "$FAKE,$FX,fail-start" || fail "tracer" "no socket"
if $XTOP capture --duration 300 --logdir "$TMP/logF" "$WP" >"$TMP/out" 2>"$TMP/err" &&
	grep -q "warning: PID $WP: no device events, the device tracer failed (.*CUPTI_ERROR_NOT_INITIALIZED" "$TMP/err"; then
	ok "a device tracer that fails to start: saved with one warning naming the error"
else
	fail "tracer start" "$(cat "$TMP/err")"
fi
kill -9 "$WP"
run_w "$W" --no-annotate --plugin "$FAKE,$FX,tracer-failed" || fail "tracer" "no socket"
expect_error "an empty trace because the device tracer failed" 1 \
	"nothing was captured (empty trace): the device tracer failed (cuptiSubscribe" \
	$XTOP capture --duration 200 --logdir "$TMP/made/for/logG" "$WP"
[ -d "$TMP/made" ] && fail "empty run" "$TMP/made left behind" ||
	ok "an empty capture leaves no directory behind, nor those made above its logdir"
kill -9 "$WP"

# 6b. XLA's CUDA command buffers: a capture with them on can crash the
# workload (launch.h), so xtop run turns them off in XLA_FLAGS, keeping the
# user's flags and their own choice; with them kept (--command-buffers) a
# capture of a process that loaded XLA's CUDA plugin warns, and a start
# that fails in CUPTI says what to do.
# The workload's own environment (a program of this build: under ASan,
# the agent needs the sanitizer's runtime in the process).
flags_of() { tr '\0' '\n' <"/proc/$1/environ" | sed -n 's/^XLA_FLAGS=/=/p'; }
cb_case() { # cb_case XLA_FLAGS|- WANT|- NOTE(0|1) [RUN_OPTS]: - = unset
	if [ "$1" = - ]; then unset XLA_FLAGS; else export XLA_FLAGS="$1"; fi
	RUN_OPTS=${4:-} run_w "$AG/idle" || { fail "XLA_FLAGS" "no socket for '$1': $(cat "$TMP/run.err")"; return; }
	unset XLA_FLAGS
	got=$(flags_of "$WP")
	kill -9 "$WP"
	want="=$2"
	[ "$2" = - ] && want=
	if [ "$got" != "$want" ]; then
		fail "XLA_FLAGS" "'$1' ${4:-} became '$got', not '$want'"
	elif [ "$3" = 1 ] && ! grep -q "^xtop: CUDA command buffers are off in this workload (XLA_FLAGS gets --xla_gpu_enable_command_buffer=): a GPU capture with them can crash it; --command-buffers keeps them$" "$TMP/run.err"; then
		fail "XLA_FLAGS" "not said: $(cat "$TMP/run.err")"
	elif [ "$3" = 0 ] && grep -q "command buffers are off" "$TMP/run.err"; then
		fail "XLA_FLAGS" "said to turn off what was kept: $(cat "$TMP/run.err")"
	else
		cb_ok=$((cb_ok + 1))
	fi
}
cb_ok=0
cb_case - "--xla_gpu_enable_command_buffer=" 1
cb_case "--xla_dump_to=d" "--xla_gpu_enable_command_buffer= --xla_dump_to=d" 1
# XLA reads no flag after a word that is not one: xtop's comes first.
cb_case "--xla_dump_to=d stray" "--xla_gpu_enable_command_buffer= --xla_dump_to=d stray" 1
cb_case "--xla_gpu_enable_command_buffer=FUSION" "--xla_gpu_enable_command_buffer=FUSION" 0
cb_case - - 0 --command-buffers
# A value that does not start with '-' is a file of flags to XLA: its
# flags go in its place, after xtop's (a name with a flag after it is a
# file XLA cannot open); one that sets command buffers is kept.
printf '%s' "--xla_dump_to=d" >"$TMP/on.flags"
printf '  %s\n' "--xla_gpu_enable_command_buffer=" >"$TMP/off.flags"
cb_case "$TMP/on.flags" "--xla_gpu_enable_command_buffer= --xla_dump_to=d" 1
cb_case "$TMP/off.flags" "$TMP/off.flags" 0
# One too long to put in the environment stays as it is, and xtop says that
# command buffers stay on.
head -c 70000 /dev/zero | tr '\0' ' ' >"$TMP/big.flags"
cb_case "$TMP/big.flags" "$TMP/big.flags" 0
if grep -q "^xtop: CUDA command buffers stay on in this workload: xtop cannot read whole the flag file XLA_FLAGS names" "$TMP/run.err"; then
	cb_ok=$((cb_ok + 1))
else
	fail "XLA_FLAGS" "a flag file too long: not said: $(cat "$TMP/run.err")"
fi
[ "$cb_ok" -eq 9 ] &&
	ok "xtop run turns CUDA command buffers off (and says so), keeps the user's XLA_FLAGS and flag files, --command-buffers keeps them on"
cp "$FAKE" "$TMP/xla_cuda_plugin.so"
RUN_OPTS=--command-buffers run_w "$AG/idle" --plugin "$TMP/xla_cuda_plugin.so,$FX,fail-start" ||
	fail "command buffers" "no socket"
$XTOP capture --duration 200 --logdir "$TMP/logCB" "$WP" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -ne 0 ] &&
	grep -q "^xtop: warning: PID $WP runs XLA's CUDA plugin with CUDA command buffers on: a capture can crash it" "$TMP/err" &&
	grep -q "CUPTI_ERROR_NOT_INITIALIZED; the workload runs CUDA command buffers, with which CUPTI can refuse a capture that follows another closely" "$TMP/err"; then
	ok "CUDA command buffers kept: the capture warns first, and a CUPTI failure says what to do"
else
	fail "command buffers kept" "rc $rc: $(cat "$TMP/err")"
fi
kill -9 "$WP"
run_w "$AG/idle" --plugin "$TMP/xla_cuda_plugin.so,$FX" || fail "command buffers" "no socket"
if $XTOP capture --duration 200 --logdir "$TMP/logCB" "$WP" >"$TMP/out" 2>"$TMP/err" &&
	! grep -q "warning" "$TMP/err" && tr '\0' '\n' <"/proc/$WP/environ" | grep -qx "XLA_FLAGS=--xla_gpu_enable_command_buffer="; then
	ok "CUDA command buffers off: no warning"
else
	fail "command buffers off" "$(cat "$TMP/err")"
fi
kill -9 "$WP"
# What XLA reads is XLA_FLAGS as the workload has it when JAX starts, which
# a script may set itself (os.environ) after /proc/PID/environ was fixed:
# the agent says what it is now. And only an empty list turns them off.
cb_warn() { # cb_warn NAME WARN(0|1) IDLE-ARGS...: xtop run's options in RUN_OPTS
	name=$1 want=$2
	shift 2
	run_w "$AG/idle" "$@" --plugin "$TMP/xla_cuda_plugin.so,$FX" || { fail "$name" "no socket"; return; }
	if ! $XTOP capture --duration 100 --logdir "$TMP/logCW" "$WP" >"$TMP/out" 2>"$TMP/err"; then
		fail "$name" "capture failed: $(cat "$TMP/err")"
	elif [ "$want" = 1 ] && ! grep -q "^xtop: warning: PID $WP runs XLA's CUDA plugin with CUDA command buffers on" "$TMP/err"; then
		fail "$name" "no warning: $(cat "$TMP/err")"
	elif [ "$want" = 0 ] && grep -q "warning" "$TMP/err"; then
		fail "$name" "warned: $(cat "$TMP/err")"
	else
		cw_ok=$((cw_ok + 1))
	fi
	kill -9 "$WP"
}
cw_ok=0
cb_warn "flags replaced by the workload" 1 --setenv XLA_FLAGS=--xla_dump_to=d
RUN_OPTS=--command-buffers cb_warn "flags set off by the workload" 0 \
	--setenv XLA_FLAGS=--xla_gpu_enable_command_buffer=
# Started with them off, /proc would say off: only the agent knows better.
export XLA_FLAGS="--xla_gpu_enable_command_buffer="
RUN_OPTS=--command-buffers cb_warn "flags unset by the workload" 1 --setenv XLA_FLAGS
# Set to a value too long to send: unknown, never the starting value.
RUN_OPTS=--command-buffers cb_warn "flags too long for the agent to send" 1 \
	--setenv "XLA_FLAGS=--xla_dump_to=$(printf '%05000d' 0)"
export XLA_FLAGS="--xla_gpu_enable_command_buffer=FUSION,CUBLAS"
cb_warn "a user's list of command kinds" 1
export XLA_FLAGS="--xla_gpu_enable_command_buffer=FUSION --xla_gpu_enable_command_buffer="
cb_warn "a user's last setting empty" 0
export XLA_FLAGS="$TMP/off.flags"
RUN_OPTS=--command-buffers cb_warn "a flag file setting them off" 0
RUN_OPTS=--command-buffers cb_warn "a flag file named by the workload" 1 \
	--setenv "XLA_FLAGS=$TMP/on.flags"
unset XLA_FLAGS
[ "$cw_ok" -eq 8 ] &&
	ok "the command-buffer warning follows XLA_FLAGS as the workload has them now, and as XLA reads them"

# 6c. A workload that starts another program (exec) during a capture, as
# a launcher script does: its agent goes with the old program; the error
# says so, and the new program's agent captures.
run_w "$W" --exec-when "$TMP/exec-now" || fail "exec" "no socket"
$XTOP capture --duration 5000 --logdir "$TMP/logE" "$WP" >"$TMP/out" 2>"$TMP/err" &
CP=$!
sleep 1.5 # the capture under way (5 s)
touch "$TMP/exec-now"
wait $CP
rc=$?
rm -f "$TMP/exec-now"
if [ $rc -ne 0 ] &&
	grep -q "PID $WP: the process started another program (exec) during the capture, which ended it: capture the new program again" "$TMP/err" &&
	$XTOP capture --duration 200 --logdir "$TMP/logE" "$WP" >"$TMP/out" 2>"$TMP/err2"; then
	ok "exec during a capture: said so, and the new program's agent captures"
else
	fail "exec during a capture" "$(cat "$TMP/err" "$TMP/err2" 2>/dev/null)"
fi
kill -9 "$WP"

# 7. Clients that vanish mid-request, bad requests, a second capture: the
# workload keeps running and the next capture works.
run_w "$W" --plugin "$FAKE,$FX" --log "$TMP/plugin2.log" || fail "peers" "no socket"
S="$SD/agent-$WP.sock"
for m in half-header short-payload start-close bad-magic; do
	$PEER "$m" "$S" >"$TMP/peer.out" 2>&1
done
if grep -q "ERROR not the xtop agent protocol" "$TMP/peer.out"; then
	ok "a request that is not the protocol gets one ERROR line"
else
	fail "bad magic" "$(cat "$TMP/peer.out")"
fi
n=0
while [ "$(grep -c '^create' "$TMP/plugin2.log")" != "$(grep -c '^destroy' "$TMP/plugin2.log")" ] && [ $n -lt 40 ]; do
	sleep 0.05
	n=$((n + 1))
done
if kill -0 "$WP" 2>/dev/null &&
	[ "$(grep -c '^create' "$TMP/plugin2.log")" -eq 1 ] && [ "$(grep -c '^destroy' "$TMP/plugin2.log")" -eq 1 ] &&
	$XTOP capture --duration 200 --logdir "$TMP/logP" "$WP" >/dev/null 2>"$TMP/err"; then
	ok "clients gone mid-request: the workload runs, the abandoned capture was destroyed, the next one works"
else
	fail "vanishing clients" "alive=$(kill -0 "$WP" 2>&1 && echo yes) $(tr '\n' ' ' <"$TMP/plugin2.log") $(cat "$TMP/err")"
fi
$XTOP capture --duration 3000 --logdir "$TMP/logQ" "$WP" >/dev/null 2>&1 &
XP=$!
n=0 # until the first capture runs
while [ "$($PEER state "$S")" != capturing ] && [ $n -lt 100 ]; do
	sleep 0.05
	n=$((n + 1))
done
expect_error "one capture at a time per process" 1 "already being captured" \
	$XTOP capture --duration 200 --logdir "$TMP/logQ2" "$WP"
wait $XP || fail "first capture" "failed while a second was refused"

# 8. Another user: the agent refuses the peer (SO_PEERCRED) even when the
# file modes let it through; xtop as that user is told it is not theirs.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 711 "$TMP" "$XDG_RUNTIME_DIR" "$SD"
	chmod 666 "$S"
	r=$($NOBODY $PY tests/agent/agent_peer.py status "$S" 2>&1)
	chmod 700 "$TMP" "$XDG_RUNTIME_DIR" "$SD"
	chmod 600 "$S"
	case "$r" in
	"ERROR refused: this agent serves only its own user (uid 0)") ok "a peer of another uid is refused by the agent (SO_PEERCRED)" ;;
	*) fail "other uid" "nobody got: $r" ;;
	esac
	expect_error "xtop capture of another user's workload" 2 "another user" \
		$NOBODY env XDG_RUNTIME_DIR= $XTOP capture --duration 100 "$WP"
	kill -0 "$WP" 2>/dev/null && ok "the workload runs on" || fail "other uid" "workload gone"
else
	skip "another uid" "needs root and setpriv to act as another user"
fi

# 9. A workload killed during a capture: one line with how it ended (xtop
# run records it); xtop run ends the same way.
for sig in KILL SEGV; do
	$XTOP capture --duration 5000 --logdir "$TMP/logK" "$WP" >"$TMP/out" 2>"$TMP/err" &
	XP=$!
	sleep 0.8
	kill -s $sig "$WP"
	wait $XP
	rc=$?
	wait "$RP"
	rrc=$?
	if [ $sig = KILL ]; then
		pat="PID $WP: the workload died during the capture: killed by signal 9 (SIGKILL)$"
		want=137
	else
		# ASan's own SEGV handler turns the signal into exit status 1.
		pat="PID $WP: the workload died during the capture: .*XLA_FLAGS=--xla_gpu_enable_command_buffer= "
		want=$(grep -q AddressSanitizer "$TMP/run.err" && echo 1 || echo 139)
	fi
	if [ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "$pat" "$TMP/err"; then
		ok "SIG$sig mid-capture: $(sed 's/.*died during the capture: //; s/;.*//' "$TMP/err")"
	else
		fail "SIG$sig mid-capture" "rc=$rc $(cat "$TMP/err")"
	fi
	[ "$rrc" -eq "$want" ] && ok "xtop run ends as its workload did (status $rrc)" ||
		fail "xtop run status" "$rrc, want $want"
	if [ $sig = KILL ]; then
		# Capturing it again: it has ended, not "runs no profiler server".
		$XTOP capture --duration 300 --logdir "$TMP/logK2" "$WP" >/dev/null 2>"$TMP/err2"
		rc=$?
		if [ $rc -ne 0 ] && [ "$(wc -l <"$TMP/err2")" -eq 1 ] &&
			grep -q "process $WP has ended (killed by signal 9 (SIGKILL)): nothing to capture" "$TMP/err2"; then
			ok "capturing a workload that has ended says how it ended"
		else
			fail "capture after the end" "rc=$rc $(cat "$TMP/err2")"
		fi
	fi
	run_w "$W" --plugin "$FAKE,$FX" || fail "restart" "no socket"
done

# 10. Sockets that are not the agent of that process.
"$AG/idle" &
IP=$!
PIDS="$PIDS $IP"
$PEER listen "$SD/agent-$IP.sock" >"$TMP/listen.out" 2>&1 &
LP=$!
PIDS="$PIDS $LP"
n=0
while ! grep -q READY "$TMP/listen.out" && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
expect_error "a foreign socket at the agent's path is refused" 2 \
	"is served by PID $LP, not by PID $IP: refusing this foreign socket" $XTOP capture "$IP"
kill "$LP"
wait "$LP" 2>/dev/null
expect_error "a stale socket: no agent, and the error says how to get one" 2 \
	"has no xtop agent (its socket is stale): start it with .xtop run -- CMD.*jax.profiler.start_server" \
	$XTOP capture "$IP"
rm -f "$SD/agent-$IP.sock"
: >"$SD/agent-$IP.sock"
expect_error "a file that is not a socket is refused" 2 "is not a socket" $XTOP capture "$IP"
rm -f "$SD/agent-$IP.sock"
expect_error "neither agent nor server: the error names both ways" 2 \
	"runs no profiler server (it listens on no TCP port) and has no xtop agent: start it with .xtop run -- CMD. (or .xtop --attach -- CMD.), or call jax.profiler.start_server(9999)" \
	$XTOP capture "$IP"
chmod 777 "$SD"
expect_error "a socket in a directory open to others is refused" 2 "not private" $XTOP capture "$WP"
chmod 700 "$SD"

# 11. The agent takes no exit path and writes nothing: what it links.
bad=$(nm -D --undefined-only "$O/libxtop-agent.so" | awk '{print $2}' | sed 's/@.*//' |
	grep -xE 'exit|_exit|_Exit|abort|signal|sigaction|raise|printf|puts|putchar|perror|fprintf|fputs|fwrite|xmalloc|fatal|write' || true)
[ -z "$bad" ] && ok "libxtop-agent.so links no exit, abort, signal or stdio output function" ||
	fail "agent symbols" "$bad"

# The public header is valid C++ too (Rust and Swift bind the C functions).
if command -v c++ >/dev/null 2>&1; then
	if c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -Iinclude tests/agent/cxx_api.cc 2>"$TMP/cxx"; then
		ok "include/xtop/trace.h compiles as C++ (xtop::Trace, xtop::Step)"
	else
		fail "C++ header" "$(head -c 300 "$TMP/cxx")"
	fi
else
	skip "C++ header" "no C++ compiler"
fi

# 12. A workload that exits normally (under ASan: with LeakSanitizer's
# check of the agent) after a capture; its socket goes with it.
run_w "$W" --plugin "$FAKE,$FX" --exit-after 2500 || fail "exit" "no socket"
$XTOP capture --duration 300 --logdir "$TMP/logX" "$WP" >/dev/null 2>"$TMP/err" || fail "exit" "$(cat "$TMP/err")"
wait "$RP"
rc=$?
if [ $rc -eq 0 ] && [ ! -e "$SD/agent-$WP.sock" ]; then
	ok "a workload that exits after a capture: status 0, no leak report, socket removed"
else
	fail "normal exit" "rc=$rc $(tail -n 5 "$TMP/run.err")"
fi
expect_error "xtop run without a command" 2 "run needs a command" $XTOP run
expect_error "xtop run of a missing command" 127 "cannot run /nonexistent" $XTOP run -q -- /nonexistent
printf 'not a program\n' >"$TMP/notexec"
chmod 644 "$TMP/notexec"
expect_error "xtop run of a file that cannot run: 126, as a shell" 126 "cannot run $TMP/notexec: Permission denied" \
	$XTOP run -q -- "$TMP/notexec"
expect_error "xtop run without its agent: 125, its own failure" 125 "XTOP_AGENT=/nonexistent" \
	env XTOP_AGENT=/nonexistent $XTOP run -q -- true
# A killed workload cannot remove its socket: xtop run does, as it ends.
run_w "$W" || fail "killed" "no socket"
kill -9 "$WP"
{ wait "$RP"; } 2>/dev/null
if [ ! -e "$SD/agent-$WP.sock" ] && [ -e "$SD/agent-$WP.exit" ]; then
	ok "a killed workload's socket is removed by xtop run; its exit record stays for capture"
else
	fail "killed workload's files" "$(ls "$SD")"
fi
# An agent whose path has a space: LD_PRELOAD splits there, so xtop run
# preloads it through a link in the socket directory.
mkdir "$TMP/my tools"
cp "$XTOP" "$O/libxtop-agent.so" "$TMP/my tools/"
RUN_XTOP="$TMP/my tools/xtop"
run_w "$AG/workload-static" || fail "space" "no socket"
RUN_XTOP=
pre=$(tr '\0' '\n' <"/proc/$WP/environ" | sed -n 's/^LD_PRELOAD=//p')
if case "$pre" in "$SD"/libxtop-agent-*.so) true ;; *) false ;; esac &&
	[ "$(readlink "$pre")" = "$TMP/my tools/libxtop-agent.so" ] &&
	$XTOP capture --duration 300 --logdir "$TMP/logSp" "$WP" >"$TMP/out" 2>"$TMP/err"; then
	ok "an agent installed under a path with a space is preloaded through a link, and captures"
else
	fail "agent path with a space" "$(cat "$TMP/run.err" "$TMP/err" 2>/dev/null | tail -n 3)"
fi
kill -9 "$WP"

# 13. The viewer: xtop --attach -- CMD launches with the agent, c captures,
# x knows the capture is saved, q leaves the workload running.
tmux_wait() { # tmux_wait TEXT: polls the pane for TEXT (15 s)
	n=300
	while [ $n -gt 0 ]; do
		$T capture-pane -p -J >"$TMP/pane" 2>/dev/null
		grep -qF -- "$1" "$TMP/pane" && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}
$T new-session -d -x 160 -y 30 "env LC_ALL=C.UTF-8 TERM=screen-256color XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR $XTOP --duration 400 --logdir $TMP/logV --attach -- $W --plugin $FAKE,$FX; echo EXIT=\$?; sleep 30"
if tmux_wait "attached to PID" && tmux_wait "started with the xtop agent"; then
	VP=$(sed -n 's/.*attached to PID \([0-9]*\).*/\1/p' "$TMP/pane" | head -n 1)
	PIDS="$PIDS $VP"
	ok "xtop --attach -- CMD starts CMD with the agent and attaches (PID $VP)"
else
	fail "--attach -- CMD" "$(cat "$TMP/pane")"
fi
$T send-keys c
if tmux_wait "captured 1 of 1 host" && tmux_wait "/device:GPU:0"; then
	ok "viewer: c captures through the agent and shows the plugin's device planes"
else
	fail "viewer agent capture" "$(tail -n 3 "$TMP/pane")"
fi
$T send-keys x
if tmux_wait "already saved in $TMP/logV/plugins/profile/"; then
	ok "viewer: x on a capture says where it is already saved"
else
	fail "viewer x" "$(tail -n 2 "$TMP/pane")"
fi
$T send-keys q
if tmux_wait "EXIT=0" && grep -q "PID $VP still runs, its output going to $TMP/logV/xtop-run-$VP.log" "$TMP/pane" &&
	kill -0 "$VP" 2>/dev/null && [ -e "$TMP/logV/xtop-run-$VP.log" ] &&
	grep -q "^xtop: CUDA command buffers are off in this workload" "$TMP/logV/xtop-run-$VP.log" &&
	tr '\0' '\n' <"/proc/$VP/environ" | grep -q "^XLA_FLAGS=--xla_gpu_enable_command_buffer=\\( \\|$\\)"; then
	ok "viewer: q leaves the launched workload running and says where its output goes (its log: command buffers off)"
else
	fail "viewer quit" "$(tail -n 4 "$TMP/pane")"
fi
$T kill-server 2>/dev/null
# Attach by PID to the workload it started (another tmux server).
T="tmux -L xtop-agent2-$$ -f /dev/null"
$T new-session -d -x 160 -y 30 "env LC_ALL=C.UTF-8 TERM=screen-256color XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR $XTOP --duration 300 --logdir $TMP/logW --attach $VP; echo EXIT=\$?; sleep 30"
if tmux_wait "attached to $VP ($SD/agent-$VP.sock)"; then
	ok "xtop --attach PID finds the agent's socket"
else
	fail "--attach PID (agent)" "$(cat "$TMP/pane")"
fi
kill -9 "$VP"
$T send-keys c
if tmux_wait "PID $VP: the workload died" || tmux_wait "no process"; then
	ok "viewer: capturing from a workload that is gone is one status line"
else
	fail "viewer dead workload" "$(tail -n 2 "$TMP/pane")"
fi
$T kill-server 2>/dev/null
