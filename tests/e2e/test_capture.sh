#!/bin/sh
# Live capture against a real gRPC ProfilerService process
# (tests/capture/fake_profiler_server.py, Debian's python3-grpcio), driven
# through the real xtop binary: success paths and every failure the
# capture issue lists.
. tests/e2e/lib.sh

if ! $PY -c 'import grpc, google.protobuf' 2>/dev/null; then
	skip "capture" "python3-grpcio missing (scripts/deps.sh installs it)"
	exit 0
fi
. tests/e2e/server_lib.sh
SRV_TRIES=100
# Serve a recorded real profile (JAX on MI300X) when the fixtures are there.
if have_fixtures; then
	cp "$FIX/jax-rocm-mi300x-jax08_attention/tw003.xplane.pb" "$TMP/served.xplane.pb"
else
	$GEN --kind gpu --events 20000 --seed 9 -o "$TMP/served.xplane.pb" >/dev/null 2>&1
fi
T="tmux -L xtop-cap-$$ -f /dev/null"
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	$T kill-server 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT


start_server "$TMP/served.xplane.pb" --mode auto || exit 0
# 1. The XSpace comes back in the response (emit_xspace), saved in TensorBoard's layout.
if $XTOP capture --duration 300 --logdir "$TMP/logA" "localhost:$PORT" >"$TMP/out" 2>"$TMP/err"; then
	f=$(sed -n 's/^saved \([^ ]*\) .*/\1/p' "$TMP/out")
	case "$f" in
	"$TMP/logA/plugins/profile/"*/localhost_$PORT.xplane.pb)
		if cmp -s "$f" "$TMP/served.xplane.pb"; then
			ok "capture HOST:PORT: XSpace in the response saved byte for byte as $(basename "$(dirname "$f")")/$(basename "$f")"
		else
			fail "capture response" "saved file differs from what the server sent"
		fi ;;
	*) fail "capture HOST:PORT" "unexpected path '$f'" ;;
	esac
else
	fail "capture HOST:PORT" "$(cat "$TMP/err")"
fi
# The saved run opens in xtop (as TensorBoard's layout).
if $XTOP report --json "$TMP/logA" | grep -q '"events":'; then
	ok "the saved logdir opens with xtop report"
else
	fail "saved logdir" "xtop report failed"
fi
# gRPC is loaded when a capture starts, not linked: every other run is
# spared loading it, a report works without it, and a capture without it
# says why in one line.
if ldd "$XTOP" 2>/dev/null | grep -q 'libgrpc'; then
	fail "gRPC loaded on demand" "xtop links libgrpc: $(ldd "$XTOP" | grep libgrpc)"
else
	ok "gRPC is not among xtop's linked libraries"
fi
if XTOP_GRPC_LIB=/nonexistent/libgrpc.so $XTOP report --json "$TMP/logA" | grep -q '"events":'; then
	ok "xtop report runs without the gRPC library"
else
	fail "report without gRPC" "xtop report failed"
fi
expect_error "capture without the gRPC library: one line, exit 1" 1 \
	"localhost:$PORT: cannot load the gRPC library, which capture needs: /nonexistent/libgrpc.so" \
	env XTOP_GRPC_LIB=/nonexistent/libgrpc.so $XTOP capture --duration 100 --logdir "$TMP/logZ" \
	"localhost:$PORT"
expect_error "capture with a library that is not gRPC: one line, exit 1" 1 \
	"has no grpc_init" \
	env XTOP_GRPC_LIB=libz.so.1 $XTOP capture --duration 100 --logdir "$TMP/logZ" "localhost:$PORT"
if [ ! -e "$TMP/logZ" ] || [ -z "$(find "$TMP/logZ" -name '*.xplane.pb')" ]; then
	ok "a capture that cannot load gRPC saves nothing"
else
	fail "no gRPC, nothing saved" "$(find "$TMP/logZ")"
fi
# 2. --attach by PID: /proc finds the server's listening port.
if $XTOP capture --duration 200 --logdir "$TMP/logB" "$SPID" >"$TMP/out" 2>"$TMP/err" &&
	grep -q "from localhost:$PORT" "$TMP/out"; then
	ok "capture PID finds the profiler port through /proc"
else
	fail "capture PID" "$(cat "$TMP/err" "$TMP/out")"
fi
# 3. ^C stops the capture early (Terminate RPC) and still saves.
$XTOP capture --duration 60000 --logdir "$TMP/logC" "localhost:$PORT" >"$TMP/out" 2>"$TMP/err" &
XP=$!
sleep 1
kill -INT $XP
t0=$(date +%s)
wait $XP
rc=$?
if [ $rc -eq 0 ] && [ $(($(date +%s) - t0)) -lt 10 ] && grep -q '^saved' "$TMP/out"; then
	ok "^C ends a 60 s capture early through Terminate and saves what was collected"
else
	fail "early stop" "rc=$rc $(cat "$TMP/err")"
fi
# 4. One session per process: a second capture while one runs is refused clearly.
$XTOP capture --duration 3000 --logdir "$TMP/logD" "localhost:$PORT" >/dev/null 2>&1 &
XP=$!
sleep 1
if $XTOP capture --duration 200 --logdir "$TMP/logD2" "localhost:$PORT" >"$TMP/out" 2>"$TMP/err"; then
	fail "busy server" "second capture succeeded"
elif grep -q "already profiling" "$TMP/err" && [ ! -d "$TMP/logD2/plugins/profile/$(ls "$TMP/logD2/plugins/profile" 2>/dev/null | head -n 1)" ] || [ -z "$(ls "$TMP/logD2/plugins/profile" 2>/dev/null)" ]; then
	ok "a server already profiling: clear message, no empty run left behind"
else
	fail "busy server" "$(cat "$TMP/err")"
fi
wait $XP
# 5. Two hosts of one job at once (the same server twice under two names).
start_server "$TMP/served.xplane.pb" --mode file || exit 0
P2=$PORT
if $XTOP capture --duration 300 --logdir "$TMP/logE" "localhost:$P2,127.0.0.1:$P2" >"$TMP/out" 2>"$TMP/err"; then
	fail "two targets on one server" "both succeeded although the server allows one session"
else
	: # one of the two is refused (one session per process), the other saved
fi
if grep -q '1 of 2 hosts saved' "$TMP/out" && grep -q "already profiling" "$TMP/err"; then
	ok "multi-host capture runs requests in parallel and reports each host"
else
	fail "multi-host" "$(cat "$TMP/out" "$TMP/err")"
fi
# 6. A server that writes the file itself under repository_root (no emit_xspace).
if $XTOP capture --duration 200 --logdir "$TMP/logF" "localhost:$P2" >"$TMP/out" 2>"$TMP/err" &&
	grep -q "^saved $TMP/logF/plugins/profile/.*/localhost_$P2.xplane.pb" "$TMP/out"; then
	ok "a server that writes under repository_root: the file is found in the run"
else
	fail "server-written file" "$(cat "$TMP/err" "$TMP/out")"
fi
# 6b. XTOP_LOGDIR is the default logdir of xtop capture too.
if XTOP_LOGDIR="$TMP/logEnv" $XTOP capture --duration 100 "localhost:$P2" >"$TMP/out" 2>"$TMP/err" &&
	grep -q "^saved $TMP/logEnv/plugins/profile/" "$TMP/out"; then
	ok "XTOP_LOGDIR sets where xtop capture saves"
else
	fail "XTOP_LOGDIR" "$(cat "$TMP/err" "$TMP/out")"
fi
# 6c. The config file's settings, with --logdir still the strongest.
printf 'logdir = %s\nduration = 150\n' "$TMP/logCfg" >"$TMP/xtop.cfg"
if XTOP_CONFIG="$TMP/xtop.cfg" $XTOP capture "localhost:$P2" >"$TMP/out" 2>"$TMP/err" &&
	grep -q "^saved $TMP/logCfg/plugins/profile/" "$TMP/out" &&
	XTOP_CONFIG="$TMP/xtop.cfg" $XTOP capture --logdir "$TMP/logCli" "localhost:$P2" \
		>"$TMP/out" 2>"$TMP/err" && grep -q "^saved $TMP/logCli/plugins/profile/" "$TMP/out"; then
	ok "the config file's logdir is where xtop capture saves, --logdir over it"
else
	fail "config file logdir" "$(cat "$TMP/err" "$TMP/out")"
fi
# 6d. Bytes that do not read as a profile are kept aside as .bad: the run
# they came in, and the logdir whose newest run it is, still open.
head -c 3000 /dev/urandom >"$TMP/garbage.xplane.pb"
start_server "$TMP/garbage.xplane.pb" --mode auto || exit 0
PG=$PORT GPID=$SPID
$XTOP capture --duration 100 --logdir "$TMP/logA" "localhost:$PG" >"$TMP/out" 2>"$TMP/err"
rc=$?
bad=$(ls "$TMP"/logA/plugins/profile/*/localhost_$PG.xplane.pb.bad 2>/dev/null)
if [ $rc -eq 1 ] && [ -n "$bad" ] && grep -q "saved $bad, but it does not read as a profile" "$TMP/err" &&
	$XTOP report --json "$TMP/logA" | grep -q '"events":'; then
	ok "a capture that does not read as a profile: kept as .bad, the logdir still opens its last good run"
else
	fail "garbage capture" "rc=$rc bad='$bad' $(cat "$TMP/out" "$TMP/err")"
fi
if $XTOP capture --duration 200 --logdir "$TMP/logA2" "localhost:$P2,127.0.0.1:$PG" >"$TMP/out" 2>"$TMP/err"; then
	fail "one host of two garbage" "exit 0"
else
	run=$(sed -n 's/^run \([^:]*\): 1 of 2 hosts saved.*/\1/p' "$TMP/out")
	if [ -n "$run" ] && [ "$($XTOP report --json "$run" | grep -c '"events":')" -ge 1 ] &&
		ls "$run"/*.bad >/dev/null 2>&1; then
		ok "one host of two does not read as a profile: the run opens with the other"
	else
		fail "one host of two garbage" "$(cat "$TMP/out" "$TMP/err")"
	fi
fi
# --every --keep with a server that sends garbage every time: the runs
# holding only .bad bytes are pruned too (each kind its own last N), so
# the disk does not fill.
$XTOP capture --duration 100 --every 1 --keep 1 --logdir "$TMP/logAB" "localhost:$PG" >"$TMP/out" 2>"$TMP/err" &
XP=$!
sleep 3.5
kill -INT $XP
wait $XP
nb=$(ls "$TMP"/logAB/plugins/profile/*/*.bad 2>/dev/null | wc -l)
if [ "$nb" -eq 1 ] && [ "$(ls "$TMP/logAB/plugins/profile" | wc -l)" -eq 1 ] &&
	[ "$(grep -c '^removed' "$TMP/out")" -ge 2 ]; then
	ok "--every --keep 1 with garbage each time: the runs of only .bad bytes are pruned to the last one"
else
	fail "--keep with .bad runs" "$nb .bad files; $(ls "$TMP/logAB/plugins/profile"); $(tail -n 3 "$TMP/out")"
fi
kill "$GPID" 2>/dev/null
# 7. empty_trace.
start_server "$TMP/served.xplane.pb" --empty || exit 0
if $XTOP capture --duration 200 --logdir "$TMP/logG" "localhost:$PORT" >"$TMP/out" 2>"$TMP/err"; then
	fail "empty trace" "exit 0"
elif grep -q "nothing was captured (empty trace)" "$TMP/err"; then
	ok "empty_trace: says nothing was captured, exit non-zero"
else
	fail "empty trace" "$(cat "$TMP/err")"
fi
# 7b. The device tracer failed: an empty trace says so; host events only are
# saved with a warning.
start_server "$TMP/served.xplane.pb" --empty --tracer-failed || exit 0
expect_error "empty trace because the device tracer failed" 1 \
	"nothing was captured (empty trace): the device tracer failed (cuptiSubscribe: error 15: CUPTI_ERROR_NOT_INITIALIZED)" \
	$XTOP capture --duration 200 --logdir "$TMP/logG2" "localhost:$PORT"
start_server "$TMP/served.xplane.pb" --tracer-failed || exit 0
if $XTOP capture --duration 200 --logdir "$TMP/logG3" "localhost:$PORT" >"$TMP/out" 2>"$TMP/err" &&
	grep -q "^saved" "$TMP/out" &&
	grep -q "warning: localhost:$PORT: no device events, the device tracer failed (cuptiSubscribe" "$TMP/err"; then
	ok "host events only because the device tracer failed: saved, with one warning"
else
	fail "tracer failed" "$(cat "$TMP/out" "$TMP/err")"
fi
# 8. The workload exits mid-capture.
start_server "$TMP/served.xplane.pb" --mode auto || exit 0
$XTOP capture --duration 5000 --logdir "$TMP/logH" "localhost:$PORT" >"$TMP/out" 2>"$TMP/err" &
XP=$!
sleep 1
kill "$SPID"
wait $XP
rc=$?
if [ $rc -ne 0 ] && grep -q "UNAVAILABLE\|lost it" "$TMP/err"; then
	ok "workload exiting mid-capture: clear message, exit $rc"
else
	fail "workload exits" "rc=$rc $(cat "$TMP/err")"
fi
# 8b. Captured by PID, the workload's death is the news (with how it ended
# when still known: the shell may have reaped it already).
start_server "$TMP/served.xplane.pb" --mode auto || exit 0
$XTOP capture --duration 5000 --logdir "$TMP/logH2" "$SPID" >"$TMP/out" 2>"$TMP/err" &
XP=$!
sleep 1
kill "$SPID"
wait $XP
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
	grep -q "^xtop: localhost:$PORT: the workload (PID $SPID) died during the capture: \(exited\|killed by signal 15 (SIGTERM)\)$" "$TMP/err"; then
	ok "workload killed mid-capture by PID: one line, $(sed 's/.*during the capture: //' "$TMP/err")"
else
	fail "workload dies (PID)" "rc=$rc $(cat "$TMP/err")"
fi
# 9. Nothing listening / bad address / no such PID / a PID with no server.
expect_error "nothing listening" 1 "cannot reach it" $XTOP capture --duration 100 --logdir "$TMP/logI" localhost:1
expect_error "bad address" 2 "bad address" $XTOP capture --logdir "$TMP/logI" "localhost:notaport"
expect_error "PID that does not exist" 2 "no process with PID" $XTOP capture 999999999
sleep 30 &
SP=$!
PIDS="$PIDS $SP"
expect_error "PID without a profiler server" 2 "runs no profiler server" $XTOP capture "$SP"
if [ "$(id -u)" != 0 ]; then
	expect_error "PID of another user" 2 "another user" $XTOP capture 1
elif command -v setpriv >/dev/null 2>&1; then
	# As root, drop to nobody to look at root's process 1.
	expect_error "PID of another user" 2 "another user" \
		setpriv --reuid=65534 --regid=65534 --clear-groups $XTOP capture 1
else
	skip "PID of another user" "root without setpriv sees every process"
fi
# 10. An unwritable logdir: clear error, nothing lost.
start_server "$TMP/served.xplane.pb" --mode auto || exit 0
mkdir -p "$TMP/ro" && chmod 500 "$TMP/ro"
if [ "$(id -u)" = 0 ]; then
	# root ignores permissions: use a path under a regular file instead.
	: >"$TMP/file"
	expect_error "unwritable logdir" 2 "cannot create" $XTOP capture --duration 100 --logdir "$TMP/file/sub" "localhost:$PORT"
else
	expect_error "unwritable logdir" 2 "cannot create" $XTOP capture --duration 100 --logdir "$TMP/ro/sub" "localhost:$PORT"
fi
chmod 700 "$TMP/ro"
# 11. --every/--keep keeps the last N runs this command made; of a run it
# drops, it removes only the files it wrote: a note the user put there stays.
$XTOP capture --duration 100 --every 1 --keep 2 --logdir "$TMP/logJ" "localhost:$PORT" >"$TMP/out" 2>"$TMP/err" &
XP=$!
sleep 0.8
first=$(ls -d "$TMP"/logJ/plugins/profile/* 2>/dev/null | head -n 1)
[ -n "$first" ] && echo "the loss went up here" >"$first/NOTES.txt"
sleep 3.7
kill -INT $XP
wait $XP
runs=$(ls "$TMP/logJ/plugins/profile" | wc -l)
if [ "$runs" -eq 3 ] && grep -q "keeping the last 2 runs" "$TMP/out" &&
	[ -s "$first/NOTES.txt" ] && ! ls "$first"/*.xplane.pb >/dev/null 2>&1 &&
	grep -q "the directory stays: it holds other files" "$TMP/out" &&
	[ "$(grep -c '^removed' "$TMP/out")" -ge 2 ]; then
	ok "--every 1 --keep 2: $(grep -c '^saved' "$TMP/out") captures, the last 2 runs kept; a run holding a note keeps it"
else
	fail "--every/--keep" "$runs runs; $(ls -R "$first" 2>&1 | head -n 5); $(cat "$TMP/out" "$TMP/err" | tail -n 5)"
fi

# 11a. A profile the user put in place of one xtop wrote (a copy moved over
# it) is theirs: pruning leaves it, and says so.
$XTOP capture --duration 100 --every 1 --keep 1 --logdir "$TMP/logK" "localhost:$PORT" >"$TMP/outK" 2>"$TMP/errK" &
XP=$!
f=""
for i in $(seq 1 50); do
	f=$(ls "$TMP"/logK/plugins/profile/*/*.xplane.pb 2>/dev/null | head -n 1)
	[ -n "$f" ] && break
	sleep 0.1
done
[ -n "$f" ] && cp "$f" "$TMP/mine.pb" && echo "mine" >>"$TMP/mine.pb" && mv "$TMP/mine.pb" "$f"
sleep 2.5
kill -INT $XP
wait $XP
if [ -n "$f" ] && [ -s "$f" ] && tail -c 5 "$f" | grep -q mine &&
	grep -q "^kept $f: not the file this capture wrote any more" "$TMP/outK"; then
	ok "--keep: a profile the user put in place of one xtop wrote stays, and xtop says so"
else
	fail "--keep and the user's file" "'$f'; $(tail -n 4 "$TMP/outK")"
fi

# 11b. --trace-json writes <host>.trace.json.gz beside the profile (Perfetto).
if $XTOP capture --trace-json --duration 100 --logdir "$TMP/logL" "localhost:$PORT" >"$TMP/out" 2>"$TMP/err"; then
	j=$(ls "$TMP"/logL/plugins/profile/*/*.trace.json.gz 2>/dev/null | head -n 1)
	x=$(ls "$TMP"/logL/plugins/profile/*/*.xplane.pb | head -n 1)
	if [ -n "$j" ] && $PY - "$j" "$x" "$XTOP" <<'PYEOF'; then
import gzip, json, subprocess, sys
d = json.load(gzip.open(sys.argv[1]))
xs = [e for e in d["traceEvents"] if e.get("ph") == "X"]
rep = json.loads(subprocess.run([sys.argv[3], "report", "--json", sys.argv[2]],
                                capture_output=True, check=True).stdout)
# Every event but the Async XLA Ops lines (left out, as upstream does).
skip = sum(l["events"] for h in rep["hosts"] for p in h["planes"] for l in p["line_list"]
           if l["name"] == "Async XLA Ops")
assert len(xs) == rep["events"] - skip, (len(xs), rep["events"], skip)
assert all(e["dur"] > 0 and "name" in e for e in xs)
PYEOF
		ok "--trace-json: $(basename "$j") parses and holds every event"
	else
		fail "--trace-json" "missing or wrong $j"
	fi
else
	fail "--trace-json" "$(cat "$TMP/err")"
fi
# 11c. A server that never answers: the deadline ends the call with a clear message.
start_server "$TMP/served.xplane.pb" --hang || exit 0
t0=$(date +%s)
if $XTOP capture --duration 100 --deadline 1500 --logdir "$TMP/logM" "localhost:$PORT" >"$TMP/out" 2>"$TMP/err"; then
	fail "deadline" "exit 0"
elif grep -q "no answer before the deadline" "$TMP/err" && [ $(($(date +%s) - t0)) -lt 10 ]; then
	ok "a stuck server: the deadline passes, one clear line, no run left behind"
else
	fail "deadline" "$(cat "$TMP/err")"
fi
kill "$SPID" 2>/dev/null
start_server "$TMP/served.xplane.pb" --mode auto || exit 0

# 12. In the viewer: --attach, c captures, the profile opens, x saves, [ ] switch;
# a failed capture leaves the viewer running with its profile.
tmux_wait() { # tmux_wait TEXT: polls the pane for TEXT (10 s)
	n=200
	while [ $n -gt 0 ]; do
		$T capture-pane -p >"$TMP/pane" 2>/dev/null
		grep -qF -- "$1" "$TMP/pane" && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}
start_server "$TMP/served.xplane.pb" --mode auto || exit 0
$T new-session -d -x 100 -y 30 "env LC_ALL=C.UTF-8 TERM=screen-256color $XTOP --attach localhost:$PORT --duration 400 --logdir $TMP/logK; echo EXIT=\$?; sleep 30"
if tmux_wait "attached to localhost:$PORT"; then
	ok "viewer --attach starts with no profile and says how to capture"
else
	fail "viewer --attach" "$(cat "$TMP/pane")"
fi
$T send-keys c
if tmux_wait "captured 1 of 1 host" && tmux_wait "/device:GPU:0"; then
	ok "viewer: c captures and opens the new profile"
else
	fail "viewer capture" "$(tail -n 3 "$TMP/pane")"
fi
$T send-keys x
if tmux_wait "already saved in $TMP/logK/plugins/profile/"; then
	ok "viewer: x on a capture says the run it is already saved in"
else
	fail "viewer save" "$(tail -n 2 "$TMP/pane")"
fi
$T send-keys '['
if tmux_wait "profile 1 of 2"; then
	ok "viewer: [ returns to the previous profile"
else
	fail "viewer [" "$(tail -n 2 "$TMP/pane")"
fi
kill "$SPID"
sleep 0.3
$T send-keys ']' c
if tmux_wait "capture failed: localhost:$PORT" && grep -q "/device:GPU:0" "$TMP/pane"; then
	ok "viewer: a failed capture is one status line; the profile stays"
else
	fail "viewer failed capture" "$(tail -n 3 "$TMP/pane")"
fi
$T send-keys q
if tmux_wait "EXIT=0"; then
	ok "viewer: q quits after captures"
else
	fail "viewer quit" "$(tail -n 3 "$TMP/pane")"
fi
$T kill-server 2>/dev/null

# 12b. q during a capture: ended then, and said where it is saved; with a
# server that answers nothing (stopped), q leaves within a second or so,
# not after the gRPC deadline (a minute).
start_server "$TMP/served.xplane.pb" --mode auto || exit 0
$T new-session -d -x 250 -y 30 "env LC_ALL=C.UTF-8 TERM=screen-256color $XTOP --attach localhost:$PORT --duration 20000 --logdir $TMP/logQ; echo EXIT=\$?; sleep 30"
tmux_wait "attached to localhost:$PORT" >/dev/null
$T send-keys c
sleep 0.8
$T send-keys q
if tmux_wait "EXIT=0" && grep -q "^xtop: the capture under way at quit was ended then, and saved in $TMP/logQ/plugins/profile/" "$TMP/pane" &&
	ls "$TMP"/logQ/plugins/profile/*/*.xplane.pb >/dev/null 2>&1; then
	ok "viewer: q during a capture ends it and says where it was saved"
else
	fail "viewer quit during a capture" "$(tail -n 3 "$TMP/pane")"
fi
$T kill-server 2>/dev/null
kill "$SPID" 2>/dev/null
start_server "$TMP/served.xplane.pb" --mode auto || exit 0
$T new-session -d -x 250 -y 30 "env LC_ALL=C.UTF-8 TERM=screen-256color $XTOP --attach localhost:$PORT --duration 20000 --logdir $TMP/logQ2; echo EXIT=\$?; sleep 30"
tmux_wait "attached to localhost:$PORT" >/dev/null
$T send-keys c
tmux_wait "capturing" >/dev/null
sleep 0.5
kill -STOP "$SPID"
t0=$(date +%s)
$T send-keys q
if tmux_wait "EXIT=0" && [ $(($(date +%s) - t0)) -le 4 ] &&
	grep -q "^xtop: left the capture from localhost:$PORT, which does not answer" "$TMP/pane"; then
	ok "viewer: q with a server that answers nothing leaves at once, and says so"
else
	fail "viewer quit, server stopped" "$(($(date +%s) - t0)) s: $(tail -n 3 "$TMP/pane")"
fi
kill -CONT "$SPID" 2>/dev/null
kill "$SPID" 2>/dev/null
$T kill-server 2>/dev/null

# 12c. ^C just after c: the capture's run directory, made at its start and
# empty yet, goes with the viewer, and so do the logdir levels made for it.
start_server "$TMP/served.xplane.pb" --mode auto || exit 0
$T new-session -d -x 100 -y 30 "env LC_ALL=C.UTF-8 TERM=screen-256color $XTOP --attach localhost:$PORT --duration 20000 --logdir $TMP/logI/deep; echo EXIT=\$?; sleep 30"
mkdir -p "$TMP/logI"
tmux_wait "attached to localhost:$PORT" >/dev/null
$T send-keys c
tmux_wait "capturing" >/dev/null
made=$(ls -d "$TMP"/logI/deep/plugins/profile/* 2>/dev/null | wc -l)
$T send-keys C-c
# (^C ends the pane's shell too: no EXIT line to wait for)
n=0
while [ -e "$TMP/logI/deep" ] && [ $n -lt 100 ]; do
	sleep 0.05
	n=$((n + 1))
done
if [ "$made" -eq 1 ] && [ ! -e "$TMP/logI/deep" ] && [ -d "$TMP/logI" ]; then
	ok "viewer: ^C during a capture leaves no empty run directory, nor the logdir made for it"
else
	fail "viewer ^C during a capture" "made $made; $(find "$TMP/logI" | tr '\n' ' ')"
fi
kill "$SPID" 2>/dev/null
# (the ^C ended the session, and with it tmux: nothing to kill, not a failure)
$T kill-server 2>/dev/null || :
