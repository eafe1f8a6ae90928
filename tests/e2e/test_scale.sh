#!/bin/sh
# xtop-gen --scale, which the benchmark uses to make real profiles big: one
# copy reproduces the file byte for byte, K copies give K times the events
# and K times every op's and kernel's time, gzip input is accepted, and bad
# input fails cleanly without leaving a file behind.
. tests/e2e/lib.sh

# Event by event (tests/fixtures/scale_check.py): copy c of every event
# shifted by c profile spans, its identifiers by c of their ranges, all
# else the same; crafted inputs for the edges, then real profiles.
SC="$PY tests/fixtures/scale_check.py"
for c in keyid negoff double pairs farlines; do
	$SC make "$c" "$TMP/$c.pb" || { fail "scale: make $c" "scale_check.py failed"; continue; }
	for k in 1 3; do
		[ "$c.$k" = farlines.3 ] && continue
		if $GEN --scale "$TMP/$c.pb" "$k" -o "$TMP/$c.$k.pb" >/dev/null 2>"$TMP/err" &&
			$SC check "$TMP/$c.pb" "$TMP/$c.$k.pb" "$k" >"$TMP/why" 2>&1; then
			ok "scale x$k of the crafted '$c' profile: $(cat "$TMP/why")"
		else
			fail "scale x$k of the crafted '$c' profile" "$(cat "$TMP/err" "$TMP/why" 2>/dev/null)"
		fi
	done
done
cmp -s "$TMP/farlines.pb" "$TMP/farlines.1.pb" &&
	ok "scale x1 of lines 1.7e18 ns apart: the same bytes" ||
	fail "scale x1 of lines far apart" "differs"
expect_error "scale x3 of lines 1.7e18 ns apart: refused, nothing written" 2 \
	"copies of it overflow the time stamps" $GEN --scale "$TMP/farlines.pb" 3 -o "$TMP/far3.pb"
[ ! -e "$TMP/far3.pb" ] || fail "scale x3 of lines far apart" "left $TMP/far3.pb"
# A group_id too large for its copies: said, and the copies share it.
$PY - "$TMP/keyid.pb" "$TMP/huge.pb" <<'PYEOF'
import sys
sys.path.insert(0, 'tests/fixtures')
import xspace_io
s = xspace_io.read(sys.argv[1], sys.exit)
s.planes[0].lines[0].events[0].stats[0].int64_value = 2**62
xspace_io.write(s, sys.argv[2])
PYEOF
if $GEN --scale "$TMP/huge.pb" 3 -o "$TMP/huge3.pb" >/dev/null 2>"$TMP/err" &&
	grep -q "group_id goes to 4611686018427387904: 3 copies cannot renumber it" "$TMP/err"; then
	ok "scale: an identifier it cannot renumber is said"
else
	fail "scale: an identifier it cannot renumber" "$(cat "$TMP/err")"
fi
gzip -dc tests/fixtures/h100/jax-h100-mlp-nocb.xplane.pb.gz >"$TMP/h100-mlp.xplane.pb"
$GEN --scale "$TMP/h100-mlp.xplane.pb" 3 -o "$TMP/h3.pb" >/dev/null 2>&1
if $SC check "$TMP/h100-mlp.xplane.pb" "$TMP/h3.pb" 3 >"$TMP/why" 2>&1; then
	ok "scale x3 of the H100 MLP, event by event: $(cat "$TMP/why")"
else
	fail "scale x3 of the H100 MLP, event by event" "$(cat "$TMP/why")"
fi

if ! have_fixtures; then
	skip "scale of the shared fixtures" "../shared/fixtures is absent"
	exit 0
fi

n=0
bad=""
for f in "$FIX"/*/*.xplane.pb; do
	case "$f" in */corrupt/*) continue ;; esac
	$GEN --scale "$f" 1 -o "$TMP/one.pb" >/dev/null 2>&1 && cmp -s "$f" "$TMP/one.pb" ||
		bad="$bad $f"
	n=$((n + 1))
done
if [ -z "$bad" ]; then
	ok "scale x1 reproduces each of the $n fixtures byte for byte"
else
	fail "scale x1" "differs for$bad"
fi

# K copies: every count and time of the ops and kernels is K times the
# original (the copies do not overlap on a line, so nesting is unchanged),
# and so is every step: each copy is the run again, every line shifted by
# the profile's span and every step, launch and run identifier renumbered,
# so each step row comes back K times, inferred, from host markers (the
# H100 MLP) or from device Steps lines (TF V100); inferred ones with one
# more between copies (a copy's last run has the next copy's first after it).
for f in "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb" \
	"$FIX/jax-rocm-mi300x-conv-legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb" \
	"$FIX/jax-rocm-mi300x-jax08_attention/tw003.xplane.pb" \
	"$FIX/tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb" "$TMP/h100-mlp.xplane.pb"; do
	name=$(basename "$(dirname "$f")")
	[ "$name" = "${TMP##*/}" ] && name=h100-mlp
	$GEN --scale "$f" 3 -o "$TMP/three.pb" >/dev/null 2>&1
	$XTOP report --json "$f" >"$TMP/a.json" 2>&1
	$XTOP report --json "$TMP/three.pb" >"$TMP/b.json" 2>&1
	if $PY - "$TMP/a.json" "$TMP/b.json" >"$TMP/why" 2>&1 <<'PYEOF'; then
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert b["events"] == 3 * a["events"], ("events", a["events"], b["events"])
def ops(d):
    return {(o["name"], o["program"]): o for o in d["ops"]}
oa, ob = ops(a), ops(b)
assert oa.keys() == ob.keys(), "op rows differ"
for k in oa:
    assert ob[k]["total_ps"] == 3 * oa[k]["total_ps"], (k, "total_ps")
    if oa[k]["attribution"] == "xla_op":
        assert ob[k]["occurrences"] == 3 * oa[k]["occurrences"], (k, "occurrences")
        assert ob[k]["self_ps"] == 3 * oa[k]["self_ps"], (k, "self_ps")
ka = {(r["name"], r["op"]): r for r in a["kernels"]}
kb = {(r["name"], r["op"]): r for r in b["kernels"]}
assert ka.keys() == kb.keys(), "kernel rows differ"
for k in ka:
    assert kb[k]["occurrences"] == 3 * ka[k]["occurrences"], (k, "kernel occurrences")
    assert (kb[k]["min_ps"], kb[k]["max_ps"]) == (ka[k]["min_ps"], ka[k]["max_ps"]), k
import collections
def steps(d):
    keys = ("duration_ps", "device_compute_ps", "device_to_host_ps", "host_to_device_ps",
            "collectives_ps", "host_compute_ps", "idle_ps")
    return collections.Counter(tuple(r.get(k) for k in keys) for r in d["steps"])
sa, sb = steps(a), steps(b)
assert a["steps_source"] == b["steps_source"], ("steps source", a["steps_source"], b["steps_source"])
want = collections.Counter({k: 3 * v for k, v in sa.items()})
if a["steps_source"] == "inferred":
    # An inferred step runs to the next run: each copy's last run, no step
    # alone, is one in the copies with a run after it (two more steps).
    assert sa and sum(sb.values()) == 3 * sum(sa.values()) + 2 and not (want - sb), \
        ("steps", sum(sa.values()), sum(sb.values()))
else:
    assert sa and sb == want, ("steps", sum(sa.values()), sum(sb.values()))
assert len({r["id"] for r in b["steps"]}) == len(b["steps"]), "step numbers repeat"
print(len(oa), "ops,", len(ka), "kernels,", sum(sa.values()), a["steps_source"], "steps")
PYEOF
		ok "scale x3 of $name: 3x the events, op and kernel times ($(cat "$TMP/why"))"
	else
		fail "scale x3 of $name" "$(tail -n 3 "$TMP/why")"
	fi
done

for f in "$FIX/tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb" \
	"$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"; do
	name=$(basename "$(dirname "$f")")
	$GEN --scale "$f" 2 -o "$TMP/two.pb" >/dev/null 2>&1
	if $SC check "$f" "$TMP/two.pb" 2 >"$TMP/why" 2>&1; then
		ok "scale x2 of $name, event by event: $(cat "$TMP/why")"
	else
		fail "scale x2 of $name, event by event" "$(cat "$TMP/why")"
	fi
done

f="$FIX/jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb"
gzip -c "$f" >"$TMP/in.pb.gz"
$GEN --scale "$f" 5 -o "$TMP/p.pb" >/dev/null 2>&1
$GEN --scale "$TMP/in.pb.gz" 5 -o "$TMP/z.pb" >/dev/null 2>&1
$GEN --scale "$f" 5 --gzip -o "$TMP/o.pb.gz" >/dev/null 2>&1
if cmp -s "$TMP/p.pb" "$TMP/z.pb" && gzip -dc "$TMP/o.pb.gz" | cmp -s - "$TMP/p.pb"; then
	ok "scale takes gzip input and writes gzip output"
else
	fail "scale gzip" "outputs differ"
fi

mkdir -p "$TMP/dst"
expect_error "scale of a corrupt profile" 2 "not a valid XSpace" \
	$GEN --scale "$FIX/corrupt/tpu_inference_2-utf8-mangled.xplane.pb" 2 -o "$TMP/dst/c.pb"
if [ -z "$(ls "$TMP/dst")" ]; then
	ok "scale of a corrupt profile leaves no file behind"
else
	fail "scale of a corrupt profile" "left $(ls "$TMP/dst")"
fi
expect_error "scale with K = 0" 2 "between 1 and" $GEN --scale "$f" 0 -o "$TMP/dst/k.pb"
