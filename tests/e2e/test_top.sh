#!/bin/sh
# xtop top without a screen (--batch, --json) against a real gRPC
# ProfilerService process (tests/capture/fake_profiler_server.py), which
# serves a recorded real profile and returns the same XSpace each time: so
# every capture's op self times must be exactly those `xtop report --json`
# gives for that profile. Also: the server dying and coming back, nothing
# written to disk, memory that stays flat, the settings, and bad input.
. tests/e2e/lib.sh

if ! $PY -c 'import grpc, google.protobuf' 2>/dev/null; then
	skip "top" "python3-grpcio missing (scripts/deps.sh installs it)"
	exit 0
fi
. tests/e2e/server_lib.sh
if have_fixtures; then
	cp "$FIX/jax-rocm-mi300x-jax08_attention/tw003.xplane.pb" "$TMP/served.xplane.pb"
else
	$GEN --kind gpu --events 20000 --seed 9 -o "$TMP/served.xplane.pb" >/dev/null 2>&1
fi
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
unset COLUMNS

# wait_lines FILE N [SECONDS]: until FILE has N lines; 1 on timeout.
wait_lines() {
	n=$((${3:-30} * 20))
	while [ $n -gt 0 ]; do
		[ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ] && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}
# wait_grep PATTERN FILE [SECONDS]: until FILE has a line matching PATTERN.
wait_grep() {
	n=$((${3:-30} * 20))
	while [ $n -gt 0 ]; do
		grep -q -- "$1" "$2" 2>/dev/null && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}

# wait_more PATTERN FILE COUNT [SECONDS]: until more than COUNT lines match.
wait_more() {
	n=$((${4:-30} * 20))
	while [ $n -gt 0 ]; do
		[ "$(grep -c -- "$1" "$2" 2>/dev/null)" -gt "$3" ] && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}
case $XTOP in
/*) XABS=$XTOP ;;
*) XABS=$PWD/$XTOP ;;
esac

start_server "$TMP/served.xplane.pb" --mode auto || exit 0
$XTOP report --json "$TMP/served.xplane.pb" >"$TMP/report.json"

# The refreshes' op numbers against the report of the same profile: latest
# self time and occurrences per program/name exactly, the average equal to
# it, no change, the share equal to the op profile's percent.
cat >"$TMP/agree.py" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
want = {}
for o in rep["ops"]:
    w = want.setdefault((o["program"], o["name"]), [0, 0, 0.0])
    w[0] += o["self_ps"]; w[1] += o["occurrences"]; w[2] += o["percent"]
lines = [json.loads(l) for l in open(sys.argv[2])]
bad = []
if len(lines) != int(sys.argv[3]):
    bad.append("%d refreshes, want %s" % (len(lines), sys.argv[3]))
for r in lines:
    k = r["refresh"]
    if r["error"] is not None:
        bad.append("refresh %d failed: %s" % (k, r["error"])); continue
    # With the agent, the workload's own annotations add host events.
    if r["busy_ps"] != rep["busy_ps"] or (r["events"] != rep["events"] and sys.argv[4:] != ["host-events"]):
        bad.append("refresh %d: busy %s events %s, report %s %s" % (k, r["busy_ps"], r["events"], rep["busy_ps"], rep["events"]))
    if r["captures"] != min(k, r["window"]):
        bad.append("refresh %d averages %d captures" % (k, r["captures"]))
    got = {(o["program"], o["name"]): o for o in r["ops"]}
    if set(got) != set(want):
        bad.append("refresh %d: ops differ: %s" % (k, sorted(set(got) ^ set(want))[:3]))
    for key, (ps, occ, pct) in want.items():
        o = got.get(key)
        if not o:
            continue
        if o["latest_ps"] != ps or o["occurrences"] != occ or o["avg_ps"] != ps:
            bad.append("refresh %d %s: latest %s avg %s occ %s, report %s %s" % (k, key, o["latest_ps"], o["avg_ps"], o["occurrences"], ps, occ))
        if (k == 1) != (o["change_ps"] is None) or (k > 1 and (o["change_ps"] != 0 or o["change_percent"] not in (0, None))):
            bad.append("refresh %d %s: change %s %s" % (k, key, o["change_ps"], o["change_percent"]))
        if o["share_percent"] is None or abs(o["share_percent"] - pct) > 0.001:
            bad.append("refresh %d %s: share %s, report %s" % (k, key, o["share_percent"], pct))
    ps_sorted = [o["latest_ps"] for o in r["ops"]]
    if ps_sorted != sorted(ps_sorted, reverse=True):
        bad.append("refresh %d: not sorted by latest" % k)
print("; ".join(bad[:4]) if bad else "OK %d ops" % len(want))
EOF

# 1. JSON: three refreshes, numbers exactly the report's.
if timeout 120 $XTOP top --json --batch 3 --every 0.3 --duration 50 "localhost:$PORT" \
	>"$TMP/top.json" 2>"$TMP/err"; then
	res=$($PY "$TMP/agree.py" "$TMP/report.json" "$TMP/top.json" 3)
	case "$res" in
	OK*) ok "top --json: 3 refreshes, each op's latest/average self time and count equal xtop report's ($res)" ;;
	*) fail "top --json agrees with report" "$res" ;;
	esac
else
	fail "top --json" "exit $?: $(cat "$TMP/err")"
fi

# 1b. A capture that lost a host, or whose device tracer failed, is no
# sample of the workload: it fails its refresh (said why) and stays out of
# the averages, which --batch's exit status says (averaged in, its missing
# time read as a 40-100 % speed-up, with exit 0).
P1=$PORT
SPID1=$SPID
start_server "$TMP/served.xplane.pb" --mode auto --tracer-failed || exit 0
PTF=$PORT
PORT=$P1
SPID=$SPID1
timeout 120 $XTOP top --json --batch 2 --every 0.3 --duration 50 "localhost:$PTF" \
	>"$TMP/tf.json" 2>"$TMP/err"
rc=$?
res=$($PY - "$TMP/tf.json" <<'PYEOF'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
bad = [r for r in rs if not (r["error"] and "not averaged" in r["error"] and
                             "device tracer failed" in r["error"] and r["ops"] is None and
                             r["start_ns"] > 10**18 and r["busy_ps"] is None and
                             r["events"] is None and r["warning"] is None and
                             r["captures"] == 0 and r["window"] >= 1)]
# A retry follows the first refresh, none the last one asked for.
retry = [r["retry_in_ms"] for r in rs]
ok = len(rs) == 2 and not bad and isinstance(retry[0], int) and retry[1] is None
print("OK" if ok else "bad: %r %r" % ([r["error"] for r in rs], retry))
PYEOF
)
if [ $rc -eq 1 ] && [ "$res" = OK ]; then
	ok "top: captures whose device tracer failed fail their refresh, are not averaged, exit 1"
else
	fail "top with a failed device tracer" "rc=$rc $res"
fi
timeout 120 $XTOP top --json --batch 2 --every 0.3 --duration 50 "localhost:$P1,127.0.0.1:1" \
	>"$TMP/half.json" 2>"$TMP/err"
rc=$?
res=$($PY - "$TMP/half.json" <<'PYEOF'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
ok = len(rs) == 2 and all(r["error"] and r["error"].startswith("1 of 2 hosts captured, not averaged")
                          and r["ops"] is None for r in rs)
print("OK" if ok else "bad: %r" % [r["error"] for r in rs])
PYEOF
)
if [ $rc -eq 1 ] && [ "$res" = OK ]; then
	ok "top: a capture that lost one of two hosts fails its refresh, is not averaged, exit 1"
else
	fail "top with a host lost" "rc=$rc $res"
fi

# 2. Text tables fit 80 columns (no terminal, no $COLUMNS), and their
# LATEST cells are the report's self times as the report prints them.
cat >"$TMP/text.py" <<'EOF'
import json, sys
def fmt_ps(ps):
    v = abs(ps)
    for div, u in ((1e12, "s"), (1e9, "ms"), (1e6, "us"), (1e3, "ns")):
        if v >= div:
            x = ps / div
            return ("%.1f" if abs(x) >= 100 else "%.2f") % x + " " + u
    return "%d ps" % ps
rep = json.load(open(sys.argv[1]))
want = {}
for o in rep["ops"]:
    want[(o["program"], o["name"])] = want.get((o["program"], o["name"]), 0) + o["self_ps"]
want = sorted(fmt_ps(v) if v else "0" for v in want.values())
text = open(sys.argv[2]).read().split("\n")
width = int(sys.argv[3])
over = [l for l in text if len(l) > width]
blocks = [i for i, l in enumerate(text) if l.lstrip().startswith("LATEST")]
bad = []
if over:
    bad.append("%d lines wider than %d: %r" % (len(over), width, over[0]))
if len(blocks) != int(sys.argv[4]):
    bad.append("%d tables" % len(blocks))
for b in blocks:
    rows = []
    for l in text[b + 1:]:
        if not l.strip() or l.startswith(" ("):
            break
        t = l.split()
        rows.append(t[0] if t[0] == "0" else t[0] + " " + t[1])
    if sorted(rows) != want:
        bad.append("LATEST cells %s, want %s" % (sorted(rows)[:3], want[:3]))
if blocks and width < 100 and "PROGRAM" in text[blocks[0]]:
    bad.append("the program column at %d columns" % width)
print("; ".join(bad[:3]) if bad else "OK")
EOF
if timeout 120 $XTOP top --batch 2 --top 0 --every 0.3 --duration 50 "localhost:$PORT" \
	>"$TMP/top.txt" 2>"$TMP/err"; then
	res=$($PY "$TMP/text.py" "$TMP/report.json" "$TMP/top.txt" 80 2)
	if [ "$res" = OK ] && grep -q '^xtop top localhost:'"$PORT"': refresh 2 of 2 at ' "$TMP/top.txt"; then
		ok "top --batch 2: two tables within 80 columns, LATEST = the report's self times"
	else
		fail "top --batch text" "$res; $(head -n 5 "$TMP/top.txt" | tr '\n' '|')"
	fi
else
	fail "top --batch text" "exit $?: $(cat "$TMP/err")"
fi
if COLUMNS=120 timeout 120 $XTOP top --batch 1 --top 0 --duration 50 "localhost:$PORT" \
	>"$TMP/top120.txt" 2>"$TMP/err" &&
	[ "$($PY "$TMP/text.py" "$TMP/report.json" "$TMP/top120.txt" 120 1)" = OK ] &&
	grep -q 'PROGRAM' "$TMP/top120.txt"; then
	ok "COLUMNS=120: the table fits 120 columns and shows the program column"
else
	fail "top COLUMNS=120" "$(head -n 4 "$TMP/top120.txt" | tr '\n' '|') $(cat "$TMP/err")"
fi

# The column a table is sorted by stays at 80 columns (SEEN drops first otherwise).
if COLUMNS=80 timeout 120 $XTOP top --batch 1 --top 3 --sort seen --duration 50 "localhost:$PORT" \
	>"$TMP/topseen.txt" 2>"$TMP/err" && grep -q " SEEN" "$TMP/topseen.txt" &&
	! awk 'length($0) > 80' "$TMP/topseen.txt" | grep -q .; then
	ok "top --batch --sort seen at 80 columns shows SEEN, within 80 columns"
else
	fail "top --sort seen at 80 columns" "$(head -n 4 "$TMP/topseen.txt" | tr '\n' '|') $(cat "$TMP/err")"
fi

# 3. Captures stay in memory: no run directory in the logdir setting, and
# the scratch directory of a server that writes the profile itself (here
# it writes into the repository_root it is given) is gone afterwards.
start_server "$TMP/served.xplane.pb" --mode file || exit 0
FPORT=$PORT
mkdir -p "$TMP/tmpd"
if (cd "$TMP" && TMPDIR="$TMP/tmpd" XTOP_LOGDIR="$TMP/never" timeout 120 "$XABS" top \
	--json --batch 2 --every 0.3 --duration 50 "localhost:$FPORT" >"$TMP/topf.json" 2>"$TMP/err"); then
	res=$($PY "$TMP/agree.py" "$TMP/report.json" "$TMP/topf.json" 2)
	if [ -e "$TMP/never" ] || [ -e "$TMP/xtop-logdir" ]; then
		fail "top in memory" "a logdir was made"
	elif [ -n "$(ls -A "$TMP/tmpd")" ]; then
		fail "top in memory" "left in TMPDIR: $(ls -A "$TMP/tmpd")"
	else
		case "$res" in
		OK*) ok "server-written profiles are read from a scratch directory, removed; nothing else written" ;;
		*) fail "top, server-written profile" "$res" ;;
		esac
	fi
else
	fail "top, server-written profile" "$(cat "$TMP/err")"
fi
kill "$SPID" 2>/dev/null

# 4. The server dies mid-run and comes back on the same port: top reports
# each failed capture with the retry time, goes on, and picks up again.
start_server "$TMP/served.xplane.pb" --mode auto || exit 0
$XTOP top --batch 0 --every 0.4 --duration 200 --top 3 "localhost:$PORT" >"$TMP/live.txt" \
	2>"$TMP/live.err" &
XP=$!
if wait_grep "refresh 2 " "$TMP/live.txt" 60; then
	kill -9 "$SPID"
	if wait_grep "capture failed, retrying in 0\.[0-9] s: localhost:$PORT: cannot reach it" "$TMP/live.txt" 30; then
		ok "server killed: the refresh says the capture failed, when top retries, and why"
	else
		fail "server killed" "$(tail -n 5 "$TMP/live.txt" | tr '\n' '|')"
	fi
	start_server "$TMP/served.xplane.pb" --mode auto --port "$PORT" || { kill $XP; exit 0; }
	nfail=$(grep -c 'capture failed' "$TMP/live.txt")
	if wait_more '^xtop top .*, took ' "$TMP/live.txt" "$(grep -c '^xtop top .*, took ' "$TMP/live.txt")" 30; then
		kill -INT $XP
		wait $XP
		rc=$?
		# The average counts the captures that worked, not the failures.
		avg=$(grep '^average of' "$TMP/live.txt" | tail -n 1 | sed 's/^average of \([0-9]*\) capture.*/\1/')
		ok_n=$(grep -c '^xtop top .*, took ' "$TMP/live.txt")
		if [ $rc -eq 1 ] && [ "$nfail" -ge 1 ] && [ "$avg" -eq "$ok_n" ]; then
			ok "server back on the same port: top captures again ($nfail failed, $ok_n good, averaged over $avg), exit 1"
		else
			fail "server back" "rc=$rc failed=$nfail avg=$avg good=$ok_n"
		fi
	else
		kill $XP
		fail "server back" "no good refresh after the restart: $(tail -n 3 "$TMP/live.txt" | tr '\n' '|')"
	fi
else
	kill $XP
	fail "top --batch 0" "no refreshes: $(cat "$TMP/live.err")"
fi

# 5. Memory stays flat over many captures: only the newest capture and the
# aggregate are kept (the resident size after 60 refreshes is within a few
# MB of that after 10; each capture decodes to far more than that if kept).
if [ "${O#*asan}" != "$O" ]; then
	skip "top memory over 60 captures" "ASan build (its quarantine holds freed memory)"
else
	$XTOP top --json --batch 0 --every 0.1 --duration 10 "localhost:$PORT" >"$TMP/mem.json" 2>/dev/null &
	XP=$!
	if wait_lines "$TMP/mem.json" 10 60; then
		r10=$(awk '/VmRSS/ { print $2 }' /proc/$XP/status)
		if wait_lines "$TMP/mem.json" 60 120; then
			r60=$(awk '/VmRSS/ { print $2 }' /proc/$XP/status)
			if [ $((r60 - r10)) -lt 8192 ]; then
				ok "memory flat over 60 captures (RSS $r10 kB after 10, $r60 kB after 60)"
			else
				fail "memory over 60 captures" "RSS $r10 kB after 10, $r60 kB after 60"
			fi
		else
			fail "memory over 60 captures" "only $(wc -l <"$TMP/mem.json") refreshes"
		fi
	else
		fail "memory over 60 captures" "no refreshes"
	fi
	kill -INT $XP 2>/dev/null
	wait $XP
fi

# 5c. --batch N stopped before its N refreshes exits 1 and says so: a
# script asking for N must see that it got fewer.
$XTOP top --json --batch 20 --every 0.3 --duration 50 "localhost:$PORT" >"$TMP/cut.json" 2>"$TMP/cut.err" &
XP=$!
wait_lines "$TMP/cut.json" 2 30
kill -TERM $XP
wait $XP
rc=$?
if [ $rc -eq 1 ] && grep -q "^xtop: stopped by SIGTERM after [0-9]* of 20 refreshes" "$TMP/cut.err"; then
	ok "top --batch 20 stopped early: exit 1, and how many refreshes it printed"
else
	fail "top --batch cut short" "rc=$rc $(cat "$TMP/cut.err")"
fi

# 6. Settings: XTOP_TOP_EVERY and XTOP_TOP_DURATION, the command line over them.
if XTOP_TOP_EVERY=1 XTOP_TOP_DURATION=70 timeout 60 $XTOP top --json --batch 1 "localhost:$PORT" \
	>"$TMP/s1.json" 2>"$TMP/err" &&
	grep -q '"duration_ms":70,"every_ms":1000,' "$TMP/s1.json" &&
	XTOP_TOP_EVERY=1 XTOP_TOP_DURATION=70 timeout 60 $XTOP top --json --batch 1 --every 0.5 \
		--duration 40 "localhost:$PORT" >"$TMP/s2.json" 2>"$TMP/err" &&
	grep -q '"duration_ms":40,"every_ms":500,' "$TMP/s2.json"; then
	ok "top_every / top_duration from XTOP_TOP_EVERY / XTOP_TOP_DURATION, the command line wins"
else
	fail "top settings" "$(cat "$TMP/s1.json" "$TMP/s2.json" "$TMP/err" | head -c 300)"
fi

# 7. A PID: the profiler port is found through /proc, as for xtop capture.
if timeout 60 $XTOP top --json --batch 1 --duration 50 "$SPID" >"$TMP/pid.json" 2>"$TMP/err" &&
	grep -q '"error":null' "$TMP/pid.json"; then
	ok "top PID captures from the process's profiler port"
else
	fail "top PID" "$(cat "$TMP/err")"
fi

# 7b. A PID started with `xtop run`: the xtop agent's backend, in memory too.
AG=$O/tests/agent
if [ ! -x "$AG/workload" ] || [ ! -e "$AG/fake_pjrt.so" ] || [ ! -e "$O/libxtop-agent.so" ]; then
	skip "top by PID through the xtop agent" "agent test programs not built (make tests)"
else
	export XDG_RUNTIME_DIR="$TMP/rt"
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	$XTOP run -- "$AG/workload" --plugin "$(pwd)/$AG/fake_pjrt.so,$TMP/served.xplane.pb" \
		>"$TMP/run.out" 2>"$TMP/run.err" &
	PIDS="$PIDS $!"
	WP=
	n=0
	while [ $n -lt 200 ] && { [ -z "$WP" ] || [ ! -S "$XDG_RUNTIME_DIR/xtop/agent-$WP.sock" ]; }; do
		WP=$(sed -n 's/^xtop: PID \([0-9]*\) runs .*/\1/p' "$TMP/run.err")
		sleep 0.05
		n=$((n + 1))
	done
	PIDS="$PIDS $WP"
	if timeout 60 $XTOP top --json --batch 2 --every 0.5 --duration 300 "$WP" >"$TMP/agent.json" \
		2>"$TMP/err"; then
		res=$($PY "$TMP/agree.py" "$TMP/report.json" "$TMP/agent.json" 2 host-events)
		case "$res" in
		OK*) ok "top PID through the xtop agent: the plugin's ops, the report's numbers ($res)" ;;
		*) fail "top PID through the agent" "$res" ;;
		esac
	else
		fail "top PID through the agent" "$(cat "$TMP/err" "$TMP/run.err")"
	fi
	kill -9 "$WP" 2>/dev/null
fi

# 8. A stuck server (stopped, so it answers neither the capture nor the
# request to end it): at the start the deadline passes and it is one line,
# exit 2; later, ^C still ends top within seconds.
kill -STOP "$SPID"
expect_error "top: a stuck server at the start: the deadline passes, one line" 2 \
	"no answer before the deadline" $XTOP top --batch 1 --deadline 1500 --duration 100 "localhost:$PORT"
kill -CONT "$SPID"
mkdir -p "$TMP/stuckd"
TMPDIR="$TMP/stuckd" $XTOP top --batch 0 --every 0.5 --duration 3000 "localhost:$PORT" \
	>"$TMP/stuck.txt" 2>&1 &
XP=$!
sleep 0.5
kill -STOP "$SPID"
sleep 0.5
inflight=$(ls -A "$TMP/stuckd")
t0=$(date +%s)
kill -INT $XP
wait $XP
rc=$?
took=$(($(date +%s) - t0))
kill -CONT "$SPID"
if [ $rc -eq 0 ] && [ $took -le 6 ]; then
	ok "top: ^C during a capture from a stuck server ends top in ${took} s"
else
	fail "top: ^C with a stuck server" "rc=$rc after $took s: $(cat "$TMP/stuck.txt")"
fi
# It left without the capture that was under way: its scratch directory
# (there while the capture waited) too.
if [ -n "$inflight" ] && [ -z "$(ls -A "$TMP/stuckd")" ]; then
	ok "top: ^C with a stuck server leaves no scratch directory behind ($inflight gone)"
else
	fail "top: scratch directory after ^C" \
		"during: '$inflight', after: '$(ls -A "$TMP/stuckd" | tr '\n' ' ')'"
fi

# 9. Refused at the start, and bad input: one line, exit 2.
expect_error "top: nothing listening at the start" 2 "localhost:1: cannot reach it" \
	$XTOP top --batch 1 localhost:1
expect_error "top: not a terminal without --batch" 2 "use --batch N" $XTOP top "localhost:$PORT"
expect_error "top: bad target" 2 "bad address 'nowhere'" $XTOP top --batch 1 nowhere
expect_error "top: no such PID" 2 "no process with PID" $XTOP top --batch 1 999999999
expect_error "top: no target" 2 "needs one target" $XTOP top --batch 1
expect_error "top: --every 0" 2 "every needs a number of seconds from 0.1" \
	$XTOP top --every 0 --batch 1 "localhost:$PORT"
expect_error "top: --every abc" 2 "every needs a number of seconds" \
	$XTOP top --every abc --batch 1 "localhost:$PORT"
expect_error "top: --every -1" 2 "every needs a number of seconds" \
	$XTOP top --every -1 --batch 1 "localhost:$PORT"
expect_error "top: --duration 0" 2 "duration needs milliseconds" \
	$XTOP top --duration 0 --batch 1 "localhost:$PORT"
expect_error "top: --average 0" 2 "average needs a number of captures" \
	$XTOP top --average 0 --batch 1 "localhost:$PORT"
expect_error "top: --batch x" 2 "batch needs a number" $XTOP top --batch x "localhost:$PORT"
expect_error "top: --sort nope" 2 "sort needs one of" $XTOP top --sort nope --batch 1 "localhost:$PORT"
expect_error "top: unknown option" 2 "unknown option\|unrecognized" $XTOP top --bogus "localhost:$PORT"
expect_error "top: bad XTOP_TOP_EVERY" 2 "XTOP_TOP_EVERY" env XTOP_TOP_EVERY=0 $XTOP top --batch 1 "localhost:$PORT"
if $XTOP top --help | grep -q -- '--every SECONDS' && $XTOP --help | grep -q 'xtop top '; then
	ok "xtop top --help lists its options; xtop --help shows the top command"
else
	fail "top --help" "missing"
fi
