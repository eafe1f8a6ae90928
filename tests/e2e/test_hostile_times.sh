#!/bin/sh
# Hostile times and sizes: profiles whose timestamps, offsets, durations and
# stats sit at the ends of int64 (tests/fixtures/extreme_times.py). Every
# analysis adds and subtracts them; the report, its JSON, the diff and the
# viewer must finish with status 0 and defined arithmetic: the ASan/UBSan
# build stops at the first signed overflow, which this catches.
. tests/e2e/lib.sh

if ! $PY -c 'import google.protobuf' 2>/dev/null; then
	skip_n 2 "hostile times" "python3-protobuf not installed (scripts/deps.sh installs it)"
	exit 0
fi
$GEN --kind gpu --events 3000 --seed 5 -o "$TMP/gen-gpu.pb" >/dev/null 2>&1
$GEN --kind tpu --events 3000 --seed 6 -o "$TMP/gen-tpu.pb" >/dev/null 2>&1
inputs="$TMP/gen-gpu.pb $TMP/gen-tpu.pb"
if have_fixtures; then
	for f in "$FIX"/*/*.xplane.pb; do
		case $f in *corrupt*) continue ;; esac
		inputs="$inputs $f"
	done
else
	skip "hostile times on the real profiles" "$NOFIX"
fi

# strict_json FILE: why FILE is not strict JSON (NaN is not JSON), or nothing.
strict_json() {
	$PY -c 'import json, sys
def bad(c):
    raise ValueError("not JSON: " + c)
json.load(open(sys.argv[1]), parse_constant=bad)' "$1" 2>&1 | tail -n 1
}

n=0
for f in $inputs; do
	n=$((n + 1))
	for v in "1 0.02" "2 0.3"; do
		set -- $v
		case $f in
		"$TMP"/*) what="generated $(basename "$f")" ;;
		*) what="$(basename "$(dirname "$f")")/$(basename "$f")" ;;
		esac
		name="hostile times: $what, seed $1, rate $2"
		m="$TMP/m$n-$1.xplane.pb"
		if ! $PY tests/fixtures/extreme_times.py "$f" "$m" "$1" "$2" 2>"$TMP/err"; then
			fail "$name" "mutating: $(head -c 200 "$TMP/err")"
			continue
		fi
		why=
		for mode in report json diff diffjson; do
			case $mode in
			report) timeout 120 $XTOP report "$m" >"$TMP/out" 2>"$TMP/err" ;;
			json) timeout 120 $XTOP report --json "$m" >"$TMP/out" 2>"$TMP/err" ;;
			diff) timeout 120 $XTOP diff "$f" "$m" >"$TMP/out" 2>"$TMP/err" ;;
			diffjson) timeout 120 $XTOP diff --json "$m" "$f" >"$TMP/out" 2>"$TMP/err" ;;
			esac
			rc=$?
			if [ $rc -ne 0 ]; then
				why="$mode: exit status $rc: $(grep -m 1 'runtime error\|ERROR\|xtop' "$TMP/err" | head -c 300)"
				break
			fi
			if grep -q 'runtime error\|Sanitizer' "$TMP/err"; then
				why="$mode: $(grep -m 1 'runtime error\|Sanitizer' "$TMP/err" | head -c 300)"
				break
			fi
			if { [ $mode = json ] || [ $mode = diffjson ]; } &&
				[ -n "$(strict_json "$TMP/out")" ]; then
				why="$mode: $(strict_json "$TMP/out")"
				break
			fi
		done
		if [ -z "$why" ]; then ok "$name"; else fail "$name" "$why"; fi
	done
done

# A child op whose end passes INT64_MAX is not nested in its parent (an
# end taken modulo 2^64 nested it, and the parent's self time went to
# -2^63, then the diff's delta overflowed).
$PY - "$TMP/nest0.pb" "$TMP/nest1.pb" <<'PYEOF'
import sys
def varint(v):
    v &= (1 << 64) - 1
    out = b''
    while True:
        b = v & 0x7f
        v >>= 7
        if not v:
            return out + bytes([b])
        out += bytes([b | 0x80])
def vi(f, v):
    return varint(f << 3) + varint(v)
def ld(f, b):
    b = b.encode() if isinstance(b, str) else b
    return varint(f << 3 | 2) + varint(len(b)) + b
def space(child_dur):
    ev = [vi(1, 1) + vi(2, 1000) + vi(3, 1000), vi(1, 2) + vi(2, 1500) + vi(3, child_dur)]
    line = vi(1, 1) + ld(2, 'XLA Ops') + vi(3, 0) + b''.join(ld(4, e) for e in ev)
    md = b''.join(ld(4, vi(1, i) + ld(2, vi(1, i) + ld(2, n))) for i, n in ((1, 'fusion.1'), (2, 'fusion.2')))
    return ld(1, vi(1, 1) + ld(2, '/device:TPU:0') + ld(3, line) + md)
open(sys.argv[1], 'wb').write(space(200))
open(sys.argv[2], 'wb').write(space((1 << 63) - 101))
PYEOF
if timeout 60 $XTOP report --json "$TMP/nest1.pb" >"$TMP/out" 2>"$TMP/err" &&
	$PY -c 'import json, sys
o = {x["name"]: x for x in json.load(open(sys.argv[1]))["ops"]}
assert o["fusion.1"]["self_ps"] == 1000, o["fusion.1"]' "$TMP/out" &&
	timeout 60 $XTOP diff --json "$TMP/nest0.pb" "$TMP/nest1.pb" >"$TMP/out" 2>"$TMP/err" &&
	[ -z "$(strict_json "$TMP/out")" ]; then
	ok "hostile times: a child ending past INT64_MAX is not its parent's child"
else
	fail "hostile times: a child ending past INT64_MAX" "$(head -c 300 "$TMP/err")"
fi

# The viewer over two of them: every view, zoom to the ends and back,
# search, jumps from the lists, the details pane; then a clean exit.
. tests/e2e/tui_lib.sh
for m in "$TMP/m1-2.xplane.pb" "$TMP/m2-2.xplane.pb"; do
	[ -s "$m" ] || continue
	name="hostile times: the viewer on $(basename "$m")"
	start 80 24 XTOP_VIEW=overview $XTOP "$m"
	if ! wait_for "[overview]" 20; then
		fail "$name" "no overview; screen: $(shot)"
		continue
	fi
	for k in j j Enter 1 2 w w w w w w s s s s s s s s s s s s s s 0 d d a a . . , u i Enter \
		J K f 0 G Enter g / a Enter n n N Enter f 0 3 '>' '>' '>' j i Escape Enter 3 G i \
		Escape 4 j i Escape '>' Enter 5 j i Escape Enter 6 j '>' i Escape Enter 7 j i Escape \
		Enter 8 j '?' '?' q; do
		keys "$k"
		# a key right after Escape would read as Alt+key
		[ "$k" = Escape ] && sleep 0.5
	done
	check "$name" 'has "EXIT=0 TTY=restored"' "no clean exit" 60 'runtime error\|ERROR\|EXIT='
done
