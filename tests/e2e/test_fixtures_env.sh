#!/bin/sh
# The real-fixture tests find the fixtures where XTOP_FIXTURES says (cmocka
# and end-to-end alike), and a suite run without them says how many checks
# were skipped and why, above its "N passed, N failed" line.
. tests/e2e/lib.sh

ROOT=$(pwd)
case "$O" in /*) OB=$O ;; *) OB=$ROOT/$O ;; esac

if have_fixtures; then
	ln -s "$(cd "$FIX" && pwd)" "$TMP/elsewhere"
	# From another directory, so the default relative path cannot be what works.
	if (cd "$TMP" && XTOP_FIXTURES="$TMP/elsewhere" "$OB/tests/test_fixtures") >"$TMP/out" 2>&1 &&
		grep -q '^\[  PASSED  \] 9 test(s)' "$TMP/out"; then
		ok "cmocka: XTOP_FIXTURES=DIR runs the 9 fixture tests from another directory"
	else
		fail "cmocka: XTOP_FIXTURES=DIR" "$(grep -E 'PASSED|SKIPPED|FAILED|skipped' "$TMP/out" | head -n 4 | tr '\n' '|')"
	fi
	XTOP_FIXTURES="$TMP/elsewhere" sh tests/e2e/test_bad_input.sh >"$TMP/out" 2>&1
	if grep -q '^ok corrupt fixture' "$TMP/out" && ! grep -q "^skip.*$NOFIX" "$TMP/out"; then
		ok "end-to-end: XTOP_FIXTURES=DIR is where the shell tests look"
	else
		fail "end-to-end: XTOP_FIXTURES=DIR" "$(grep -E '^(skip|FAIL)' "$TMP/out" | head -n 3 | tr '\n' '|')"
	fi
else
	skip_n 2 "XTOP_FIXTURES=DIR is honoured" "$NOFIX"
fi

# Without fixtures: a small suite (one cmocka binary, one shell script).
mkdir -p "$TMP/fb/tests"
ln -s "$OB/tests/test_fixtures" "$TMP/fb/tests/test_fixtures"
ln -s "$OB/xtop" "$TMP/fb/xtop"
ln -s "$OB/xtop-gen" "$TMP/fb/xtop-gen"
XTOP_FIXTURES="$TMP/none" BUILDS="$TMP/fb" E2E=tests/e2e/test_bad_input.sh \
	sh tests/run_all.sh >"$TMP/suite" 2>&1
last=$(tail -n 1 "$TMP/suite")
n=$(sed -n 's/^\([0-9]*\) skipped: fixtures not found (set XTOP_FIXTURES)$/\1/p' "$TMP/suite")
total=$(printf '%s\n' "$last" | sed -n 's/^[0-9]* passed, 0 failed, \([0-9]*\) skipped$/\1/p')
if [ -n "$n" ] && [ "$n" -ge 12 ] && [ "$n" = "$total" ]; then
	ok "suite without fixtures: '$n skipped: fixtures not found (set XTOP_FIXTURES)' above '$last'"
else
	fail "suite summary without fixtures" "$(tail -n 4 "$TMP/suite" | tr '\n' '|')"
fi
