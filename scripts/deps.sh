#!/bin/sh
# Installs xtop's dependencies from Debian packages, in two sets:
#   build  what `make` needs: compiler, pkg-config, protoc-c, protobuf-c,
#          zlib, ncursesw, the gRPC C core
#   test   what `make check` needs on top: cmocka, tmux, clang with its
#          sanitizer and fuzzer runtimes, protoc and Python's protobuf and
#          gRPC (oracle, test server), Pillow and a font (screenshots), time
#   bench  what `make bench` needs on top of test: g++ and Debian's
#          libprotobuf for the libprotobuf yardstick (bench/pb_parse.cc)
# Usage:
#   scripts/deps.sh [build|test|bench]    install what is missing from the set
#                                         (each includes the one before; default build)
#   scripts/deps.sh --check [build|test]  exit 0 when the set is present, 1 otherwise
#   scripts/deps.sh --list [build|test]   print the set's Debian packages
# The Makefile calls this when something is missing (the build set for
# `make`, the test set for `make check`), so a fresh Debian machine needs
# nothing but `make`.
set -eu

BUILD_PKGS="build-essential pkg-config protobuf-c-compiler libprotobuf-c-dev zlib1g-dev \
libncurses-dev libgrpc-dev"
TEST_PKGS="libcmocka-dev tmux protobuf-compiler python3 python3-protobuf python3-grpcio clang \
libclang-rt-dev time python3-pil fonts-dejavu-core"
BENCH_PKGS="g++ libprotobuf-dev"

have_build() {
	command -v protoc-c >/dev/null 2>&1 || return 1
	command -v pkg-config >/dev/null 2>&1 || return 1
	command -v cc >/dev/null 2>&1 || return 1
	pkg-config --exists libprotobuf-c zlib ncursesw grpc 2>/dev/null || return 1
	return 0
}

have_test() {
	have_build || return 1
	command -v protoc >/dev/null 2>&1 || return 1
	command -v tmux >/dev/null 2>&1 || return 1
	command -v clang >/dev/null 2>&1 || return 1
	[ -x /usr/bin/time ] || return 1
	pkg-config --exists cmocka 2>/dev/null || return 1
	/usr/bin/python3 -c 'import grpc' 2>/dev/null || return 1
	/usr/bin/python3 -c 'import google.protobuf' 2>/dev/null || return 1
	/usr/bin/python3 -c 'import PIL' 2>/dev/null || return 1
	[ -r /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ] || return 1
	# libFuzzer and the sanitizer runtimes come with clang's runtime package.
	ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 || return 1
	return 0
}

have_bench() {
	have_test || return 1
	command -v g++ >/dev/null 2>&1 || return 1
	pkg-config --exists protobuf 2>/dev/null || return 1
	return 0
}

mode=install
case "${1:-}" in
--check) mode=check; shift ;;
--list) mode=list; shift ;;
esac
set_=${1:-build}
case "$set_" in
build) PKGS=$BUILD_PKGS ;;
test) PKGS="$BUILD_PKGS $TEST_PKGS" ;;
bench) PKGS="$BUILD_PKGS $TEST_PKGS $BENCH_PKGS" ;;
*) echo "deps.sh: unknown set '$set_' (build, test or bench)" >&2; exit 2 ;;
esac

case "$mode" in
check) "have_$set_"; exit $? ;;
list) echo $PKGS; exit 0 ;;
esac

if "have_$set_"; then
	exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "deps.sh: need root (or sudo) to install: $PKGS" >&2
		exit 1
	fi
fi
echo "deps.sh: installing Debian packages ($set_ set): $PKGS" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
"have_$set_" || { echo "deps.sh: $set_ dependencies still missing after install" >&2; exit 1; }
