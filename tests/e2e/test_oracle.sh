#!/bin/sh
# xtop's numbers against an independent implementation (tests/oracle, Python
# with Debian's python3-protobuf) on every real fixture and on generated
# profiles: events, planes, devices, every op, steps, memory and kernels.
. tests/e2e/lib.sh

if ! $PY -c 'import google.protobuf' 2>/dev/null; then
	skip "oracle" "python3-protobuf missing (scripts/deps.sh installs it)"
	exit 0
fi

compare() {
	name=$1
	shift
	if ! $XTOP report --json "$@" >"$TMP/x.json" 2>"$TMP/err"; then
		fail "$name" "xtop failed: $(cat "$TMP/err")"
		return
	fi
	if ! $PY tests/oracle/xspace_oracle.py "$@" >"$TMP/o.json" 2>"$TMP/err"; then
		fail "$name" "oracle failed: $(cat "$TMP/err")"
		return
	fi
	if $PY tests/oracle/compare.py "$TMP/x.json" "$TMP/o.json" >"$TMP/cmp" 2>&1; then
		ok "$name: $(cat "$TMP/cmp")"
	else
		fail "$name" "$(head -n 20 "$TMP/cmp")"
	fi
}

if have_fixtures; then
	for f in "$FIX"/*/*.xplane.pb; do
		case "$f" in */corrupt/*) continue ;; esac
		compare "oracle $(basename "$(dirname "$f")")/$(basename "$f")" "$f"
	done
	compare "oracle tf-gpu-v100-2host (run directory, 2 hosts)" "$FIX/tf-gpu-v100-2host"
else
	# The fixture set: seven files and one run directory.
	skip_n 8 "oracle on fixtures" "$NOFIX"
fi

# The project's own agent capture of JAX on an H100, its host planes apart
# (tests/fixtures/h100/README.md): xtop merges them as upstream would have
# saved them, the oracle reads them as one plane by its own rule (C35).
compare "oracle h100 agent capture (host planes apart)" tests/fixtures/h100/agent-h100-mlp-cb.xplane.pb.gz

if $PY tests/fixtures/rocm_copies.py "$TMP/rocm-copies.xplane.pb" 2>"$TMP/err"; then
	compare "oracle ROCm profile with HIP copy kernels" "$TMP/rocm-copies.xplane.pb"
else
	fail "generate rocm_copies" "$(cat "$TMP/err")"
fi

for kind in tpu gpu; do
	$GEN --kind $kind --events 30000 --seed 11 -o "$TMP/g-$kind.xplane.pb" >/dev/null 2>&1 ||
		fail "generate $kind" "xtop-gen failed"
	compare "oracle generated $kind profile" "$TMP/g-$kind.xplane.pb"
done
