#!/bin/sh
# Runs every test of xtop and ends with the line "N passed, N failed".
#   BUILDS="build build-asan" FUZZ=build/fuzz/fuzz_xplane sh tests/run_all.sh
# For each build directory: unit tests are cmocka binaries (their own
# PASSED/FAILED lines are counted); end-to-end tests are shell scripts under
# tests/e2e/ that print one "ok NAME" / "FAIL NAME" / "skip NAME" line per
# check. With FUZZ set, the fuzz target runs FUZZ_SECONDS (one check).
# Skipped checks are counted by reason above the last line ("3 skipped:
# fixtures not found (set XTOP_FIXTURES)"): a cmocka test says why with a
# "skipped: WHY" line, an end-to-end check with "skip NAME: WHY".
# E2E="tests/e2e/test_x.sh ..." runs only those end-to-end scripts.
BUILDS=${BUILDS:-build}
E2E=${E2E:-tests/e2e/test_*.sh}
LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
pass=0
fail=0
skip=0
log=$(mktemp "${TMPDIR:-/tmp}/xtop-tests.XXXXXX")
why=$(mktemp "${TMPDIR:-/tmp}/xtop-skips.XXXXXX")
trap 'rm -f "$log" "$why"' EXIT

for O in $BUILDS; do
export O
echo "#### build directory $O"
for t in "$O"/tests/test_*; do
	[ -x "$t" ] || continue
	echo "== $(basename "$t")"
	"$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*listed below.*/\1/p' "$log" | tail -n 1)
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
	skip=$((skip + ${s:-0}))
	sed -n 's/^skipped: //p' "$log" >>"$why"
	if [ $rc -ne 0 ] && [ -z "$f" ]; then
		echo "FAIL $(basename "$t") exited with status $rc"
		fail=$((fail + 1))
	fi
done

for t in $E2E; do
	echo "== $(basename "$t")"
	sh "$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	pass=$((pass + $(grep -c '^ok ' "$log")))
	fail=$((fail + $(grep -c '^FAIL ' "$log")))
	skip=$((skip + $(grep -c '^skip ' "$log")))
	sed -n 's/^skip [^:]*: //p' "$log" >>"$why"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$log"; then
		echo "FAIL $(basename "$t") exited with status $rc"
		fail=$((fail + 1))
	fi
done
done

if [ -n "${FUZZ:-}" ] && [ -x "$FUZZ" ]; then
	echo "== fuzz ($FUZZ, ${FUZZ_SECONDS:-30} s)"
	corpus=$(mktemp -d "${TMPDIR:-/tmp}/xtop-fuzz.XXXXXX")
	"${BUILDS%% *}/xtop-gen" --kind tpu --events 300 -o "$corpus/tpu.pb" >/dev/null 2>&1
	"${BUILDS%% *}/xtop-gen" --kind gpu --events 300 -o "$corpus/gpu.pb" >/dev/null 2>&1
	# HIP's copy kernels and their host calls (an_copies.c); skipped without python3-protobuf
	/usr/bin/python3 tests/fixtures/rocm_copies.py "$corpus/rocm.pb" >/dev/null 2>&1 || true
	# Inputs an earlier run crashed on: each is run first, every time.
	cp tests/fuzz/regress/*.pb "$corpus/" 2>/dev/null || true
	if "$FUZZ" -max_total_time="${FUZZ_SECONDS:-30}" -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 "$corpus" >"$log" 2>&1; then
		echo "ok fuzz: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') inputs, no crash"
		pass=$((pass + 1))
	else
		tail -n 40 "$log"
		echo "FAIL fuzz: the reader crashed or leaked (input saved as crash-* in $(pwd))"
		fail=$((fail + 1))
	fi
	rm -rf "$corpus"
fi

echo
if [ "$skip" -gt 0 ]; then
	sort "$why" | uniq -c | sort -rn | while read -r n reason; do
		echo "$n skipped: $reason"
	done
	given=$(wc -l <"$why")
	[ "$skip" -gt "$given" ] && echo "$((skip - given)) skipped: no reason given"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
