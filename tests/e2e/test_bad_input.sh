#!/bin/sh
# Bad input: one clear line on stderr, exit status 2, never a crash or hang.
. tests/e2e/lib.sh

expect_error "missing path" 2 "No such file" $XTOP report "$TMP/does-not-exist.xplane.pb"
: >"$TMP/empty.xplane.pb"
expect_error "empty file" 2 "empty file" $XTOP report "$TMP/empty.xplane.pb"
mkdir "$TMP/noprofiles" && echo hi >"$TMP/noprofiles/readme.txt"
expect_error "directory without profiles" 2 "no profiles found" $XTOP report "$TMP/noprofiles"
head -c 65536 /dev/urandom >"$TMP/random.xplane.pb"
expect_error "random bytes" 2 "not a valid XSpace" $XTOP report "$TMP/random.xplane.pb"
printf '\037\213\010\000garbage-after-a-gzip-header' >"$TMP/badgz.xplane.pb"
expect_error "corrupt gzip" 2 "gzip" $XTOP report "$TMP/badgz.xplane.pb"
expect_error "bad option" 2 "unknown option\|invalid option\|unrecognized" $XTOP report --bogus x
expect_error "bad --top" 2 "needs a number" $XTOP report --top x y

$GEN --kind tpu --events 20000 --seed 3 -o "$TMP/gen.xplane.pb" >/dev/null 2>&1
size=$(stat -c %s "$TMP/gen.xplane.pb")
for cut in 1 7 100 1000 $((size / 2)) $((size - 1)); do
	head -c "$cut" "$TMP/gen.xplane.pb" >"$TMP/cut.xplane.pb"
	expect_error "truncated at $cut of $size bytes" 2 "not a valid XSpace\|not an XSpace" \
		$XTOP report "$TMP/cut.xplane.pb"
done
# A file cut inside its last plane says what the cut left: the plane's
# length against the bytes that follow it.
head -c $((size / 2)) "$TMP/gen.xplane.pb" >"$TMP/cut.xplane.pb"
expect_error "truncated: the plane's length against what follows" 2 \
	"malformed protobuf at byte [0-9]* of $((size / 2)): field 1 (a plane) claims [0-9]* bytes, but [0-9]* follow it; truncated" \
	$XTOP report "$TMP/cut.xplane.pb"
printf '\002' >"$TMP/f0.xplane.pb"
expect_error "field number 0 is named" 2 "at byte 0 of 1: its field number, 0, is not one protobuf allows" \
	$XTOP report "$TMP/f0.xplane.pb"
# 2^32 + 1 cut to 32 bits would read as field 1, a plane of 5 bytes.
printf '\212\200\200\200\200\001\000' >"$TMP/fbig.xplane.pb"
expect_error "a field number above 2^29 - 1 is refused, not cut" 2 "its field number, 4294967297, is not" \
	$XTOP report "$TMP/fbig.xplane.pb"
printf '\017\001' >"$TMP/wt7.xplane.pb"
expect_error "a wire type no field uses is named" 2 "at byte 0 of 2: field 1 (a plane) has wire type 7" \
	$XTOP report "$TMP/wt7.xplane.pb"
gzip -c "$TMP/gen.xplane.pb" >"$TMP/gen.xplane.pb.gz"
gsize=$(stat -c %s "$TMP/gen.xplane.pb.gz")
head -c $((gsize / 2)) "$TMP/gen.xplane.pb.gz" >"$TMP/half.xplane.pb.gz"
expect_error "truncated gzip" 2 "truncated gzip" $XTOP report "$TMP/half.xplane.pb.gz"
expect_error "logdir: unknown run" 2 "no run named" $XTOP report --run nope "$TMP"
# Two runs of one name in two subdirectories: which is meant is asked, not
# guessed (the last one found was read).
for r in train eval; do
	mkdir -p "$TMP/ld2/$r/plugins/profile/2024_01_01_00_00_00"
	cp "$TMP/gen.xplane.pb" "$TMP/ld2/$r/plugins/profile/2024_01_01_00_00_00/h.xplane.pb"
done
expect_error "logdir: a run name two runs have" 2 \
	"runs 'eval/2024_01_01_00_00_00' and 'train/2024_01_01_00_00_00' are both named" \
	$XTOP report --run 2024_01_01_00_00_00 "$TMP/ld2"
if $XTOP report --run train/2024_01_01_00_00_00 "$TMP/ld2" >/dev/null 2>&1; then
	ok "logdir: the name --list shows picks one of them"
else
	fail "logdir: full run name" "exit $?"
fi

# A message is one line: a newline or an escape sequence in a path is shown
# escaped; a path of thousands of bytes loses its middle, not the reason.
expect_error "a newline in a path: one line, escaped" 2 'no\\nsuch.xplane.pb: No such file' \
	$XTOP report "$TMP/no
such.xplane.pb"
expect_error "an escape sequence in a path: shown escaped" 2 'x\\x1b\[31mred: No such file' \
	$XTOP report "$TMP/x$(printf '\033')[31mred"
expect_error "a 5000-byte path: the reason stays" 2 "aaa\.\.\.aaa.*: File name too long" \
	$XTOP report "$TMP/$(printf '%05000d' 0 | tr 0 a)"
expect_error "an option with a newline: one line, escaped" 2 "unknown option '--a\\\\nb'" \
	$XTOP report "--a
b" x
expect_error "top --every with a newline: one line, escaped" 2 "not '1\\\\n2'" \
	$XTOP top --every "1
2" localhost:1
expect_error "capture: a newline in an address" 2 'bad address .local\\nhost:1.' \
	$XTOP capture --duration 100 "local
host:1"

# A full disk under stdout: exit 1 and say so, never 0 with a cut answer.
mkdir -p "$TMP/ld/plugins/profile/run1" && cp "$TMP/gen.xplane.pb" "$TMP/ld/plugins/profile/run1/h.xplane.pb"
if [ -w /dev/full ]; then
	for args in "report --json" "report" "report --list" "diff --json BASE" "diff BASE"; do
		# shellcheck disable=SC2086
		timeout 60 $XTOP $(echo "$args" | sed "s|BASE|$TMP/gen.xplane.pb|") "$TMP/ld" >/dev/full 2>"$TMP/err"
		rc=$?
		if [ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "stdout: No space left" "$TMP/err"; then
			ok "xtop $args >/dev/full: exit 1, one line"
		else
			fail "xtop $args >/dev/full" "exit $rc: $(cat "$TMP/err")"
		fi
	done
else
	skip "stdout on a full disk" "no /dev/full"
fi

if have_fixtures; then
	expect_error "corrupt fixture (U+FFFD-mangled TPU profile)" 2 \
		"not a valid XSpace profile (malformed protobuf at byte 0 of 1365940: field 1 (a plane) claims 28501368332271 bytes, but 1365932 follow it" \
		$XTOP report "$FIX/corrupt/tpu_inference_2-utf8-mangled.xplane.pb"
	expect_error "SSTABLE cache file given directly" 2 "not a valid XSpace" \
		$XTOP report "$FIX/jax-rocm-mi300x-conv-legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.SSTABLE"
	# Memory stays bounded on bad input: the corrupt file under a 256 MB cap
	# (not under ASan, which reserves terabytes of address space).
	if [ "${O#*asan}" != "$O" ]; then
		skip "corrupt fixture under 256 MB" "ASan build"
	elif (ulimit -v 262144; $XTOP report "$FIX/corrupt/tpu_inference_2-utf8-mangled.xplane.pb") \
		>/dev/null 2>"$TMP/err"; then
		fail "corrupt fixture under 256 MB" "exit 0"
	elif grep -q "not a valid XSpace" "$TMP/err"; then
		ok "corrupt fixture under 256 MB address space"
	else
		fail "corrupt fixture under 256 MB" "$(cat "$TMP/err")"
	fi
else
	skip_n 3 "corrupt and SSTABLE fixtures" "$NOFIX"
fi
