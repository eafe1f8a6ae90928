# Shared helpers for the end-to-end tests: each check prints one line,
# "ok NAME", "FAIL NAME: why" or "skip NAME: why" (counted by run_all.sh).
O=${O:-build}
XTOP=${XTOP:-$O/xtop}
GEN=${GEN:-$O/xtop-gen}
# The real profiles: ../shared/fixtures, or XTOP_FIXTURES=DIR.
FIX=${XTOP_FIXTURES:-../shared/fixtures}
NOFIX="fixtures not found (set XTOP_FIXTURES)"
PY=/usr/bin/python3
TMP=$(mktemp -d "${TMPDIR:-/tmp}/xtop-e2e.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# No user's config file changes what the tests see (test_config.sh sets its own).
export XTOP_CONFIG=/dev/null

ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "skip $1: $2"; }
have_fixtures() { [ -d "$FIX" ]; }
# skip_n N NAME WHY: N skipped checks (one line each, so the summary counts them).
skip_n() {
	k=1
	while [ "$k" -le "$1" ]; do
		skip "$2 ($k of $1)" "$3"
		k=$((k + 1))
	done
}

# expect_error NAME STATUS PATTERN CMD...: CMD must exit with STATUS, print
# exactly one line on stderr matching PATTERN, and nothing on stdout.
expect_error() {
	name=$1 want=$2 pat=$3
	shift 3
	timeout 60 "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	lines=$(wc -l <"$TMP/err")
	if [ $rc -ne "$want" ]; then
		fail "$name" "exit status $rc, want $want ($(head -c 200 "$TMP/err"))"
	elif [ "$lines" -ne 1 ]; then
		fail "$name" "stderr has $lines lines, want 1"
	elif ! grep -q -- "$pat" "$TMP/err"; then
		fail "$name" "stderr '$(cat "$TMP/err")' does not match '$pat'"
	elif [ -s "$TMP/out" ]; then
		fail "$name" "unexpected output on stdout"
	else
		ok "$name"
	fi
}
