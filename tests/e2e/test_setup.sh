#!/bin/sh
# Setting up: the dependency sets, the Makefile's ordering on a fresh machine
# (protoc-c hidden with a PATH that lacks it), `make install`, README.
# These test the Makefile, not a build directory: they run in the first
# build's pass only.
. tests/e2e/lib.sh

if [ "${O#*asan}" != "$O" ]; then
	skip "set-up checks" "they test the Makefile, run once (in the normal build's pass)"
	exit 0
fi

# 1. Two package sets: the build set has none of the test-only tools.
build=" $(sh scripts/deps.sh --list build) "
testset=" $(sh scripts/deps.sh --list test) "
bad=""
for p in tmux clang libcmocka-dev python3-pil python3-grpcio libclang-rt-dev fonts-dejavu-core; do
	case "$build" in *" $p "*) bad="$bad $p" ;; esac
	case "$testset" in *" $p "*) ;; *) bad="$bad (test set lacks $p)" ;; esac
done
for p in protobuf-c-compiler libncurses-dev libgrpc-dev zlib1g-dev; do
	case "$build" in *" $p "*) ;; *) bad="$bad (build set lacks $p)" ;; esac
done
if [ -z "$bad" ]; then
	ok "deps.sh: the build set has no test-only tools; the test set adds them"
else
	fail "deps.sh sets" "$bad"
fi
if sh scripts/deps.sh --check nonsense 2>"$TMP/err"; then
	fail "deps.sh: an unknown set is refused" "exit 0"
else
	grep -q "unknown set 'nonsense'" "$TMP/err" && ok "deps.sh: an unknown set is refused" ||
		fail "deps.sh: an unknown set is refused" "$(cat "$TMP/err")"
fi

# A "fresh machine": PATH holds every command but protoc-c. The deps step
# (a stand-in for scripts/deps.sh, which would call apt-get) takes a second,
# then makes protoc-c appear; every protoc-c run is logged.
mkdir -p "$TMP/bin"
for d in $(echo "$PATH" | tr ':' '\n' | tac); do
	[ -d "$d" ] && ln -sf "$d"/* "$TMP/bin/" 2>/dev/null
done
rm -f "$TMP/bin/protoc-c"
REAL_PROTOC_C=$(command -v protoc-c)
cat >"$TMP/protoc-c" <<EOF
#!/bin/sh
echo protoc-c >>"$TMP/log"
exec "$REAL_PROTOC_C" "\$@"
EOF
cat >"$TMP/deps.sh" <<EOF
#!/bin/sh
case "\$1" in
--check) [ "\$2" = test ] && exit 0; command -v protoc-c >/dev/null 2>&1; exit \$? ;;
esac
echo "deps \$1 start" >>"$TMP/log"
sleep 1
ln -sf "$TMP/protoc-c" "$TMP/bin/protoc-c"
echo "deps \$1 end" >>"$TMP/log"
EOF
# The compiler is logged too: nothing may start while the deps step runs.
cat >"$TMP/cc" <<EOF
#!/bin/sh
echo cc >>"$TMP/log"
exec cc "\$@"
EOF
chmod +x "$TMP/protoc-c" "$TMP/deps.sh" "$TMP/cc"

# 2. make -j8 with protoc-c missing: the deps step runs first and alone
# (before, cc and protoc-c raced it: "protoc-c: No such file or directory").
: >"$TMP/log"
if ! PATH="$TMP/bin" command -v protoc-c >/dev/null 2>&1 &&
	PATH="$TMP/bin" timeout 300 make -j8 --no-print-directory O="$TMP/b" CFLAGS=-O0 \
		CC="$TMP/cc" DEPS_SH="$TMP/deps.sh" all >"$TMP/make.out" 2>&1; then
	first=$(head -n 2 "$TMP/log" | tr '\n' ',')
	if [ "$first" = "deps build start,deps build end," ] && grep -q '^protoc-c$' "$TMP/log" &&
		[ -x "$TMP/b/xtop" ]; then
		ok "make -j8 without protoc-c: the deps step finishes before protoc-c runs, build succeeds"
	else
		fail "make -j8 ordering" "order of events: $(tr '\n' ',' <"$TMP/log")"
	fi
else
	fail "make -j8 without protoc-c" "$(grep -m 3 -i 'error\|No such' "$TMP/make.out" | tr '\n' '|')"
fi

# 3. make all never asks for the test set; the test targets do, after the build set.
rm -f "$TMP/bin/protoc-c"
cat >"$TMP/deps2.sh" <<'EOF'
#!/bin/sh
[ "$1" = --check ] && exit 1
exit 0
EOF
chmod +x "$TMP/deps2.sh"
make -n --no-print-directory O="$TMP/b2" DEPS_SH="$TMP/deps2.sh" all >"$TMP/all.n" 2>&1
make -n --no-print-directory O="$TMP/b2" DEPS_SH="$TMP/deps2.sh" tests >"$TMP/tests.n" 2>&1
steps_all=$(grep -o "deps2.sh [a-z]*" "$TMP/all.n" | tr '\n' ',')
steps_tests=$(grep -o "deps2.sh [a-z]*" "$TMP/tests.n" | tr '\n' ',')
if [ "$steps_all" = "deps2.sh build," ] && [ "$steps_tests" = "deps2.sh build,deps2.sh test," ]; then
	ok "make all installs the build set only; make tests installs the build set, then the test set"
else
	fail "deps sets per target" "make all runs '$steps_all', make tests runs '$steps_tests'"
fi

# 4. Getting xtop on PATH: README says how, and make install does it.
if grep -q "make install" README.md && grep -q "build/xtop" README.md; then
	ok "README says how xtop gets on PATH (make install, or build/xtop)"
else
	fail "README install" "no 'make install' / 'build/xtop' in README.md"
fi
if [ "$O" = build ] && make --no-print-directory install PREFIX="$TMP/prefix" >"$TMP/inst" 2>&1 &&
	PATH="$TMP/prefix/bin:$PATH" xtop --help | grep -q "^usage: xtop"; then
	ok "make install PREFIX=DIR puts a working xtop in DIR/bin"
elif [ "$O" != build ]; then
	skip "make install PREFIX=DIR" "build directory is $O"
else
	fail "make install PREFIX=DIR" "$(tail -n 3 "$TMP/inst" | tr '\n' '|')"
fi
