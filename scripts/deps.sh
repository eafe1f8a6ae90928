#!/bin/sh
# Installs xtop's build and test dependencies from Debian packages.
#   scripts/deps.sh          install what is missing (needs root or sudo)
#   scripts/deps.sh --check  exit 0 when everything is present, 1 otherwise
#   scripts/deps.sh --bench  also what `make bench` needs (not needed to build
#                            or test): g++ and Debian's libprotobuf for the
#                            libprotobuf yardstick (bench/pb_parse.cc)
# The Makefile calls this when a dependency is missing, so a fresh Debian
# machine needs nothing but `make`.
set -eu

PKGS="build-essential pkg-config protobuf-c-compiler libprotobuf-c-dev protobuf-compiler \
zlib1g-dev libncurses-dev libcmocka-dev tmux python3 python3-protobuf clang libclang-rt-dev time python3-pil fonts-dejavu-core libgrpc-dev python3-grpcio"

have_all() {
	command -v protoc-c >/dev/null 2>&1 || return 1
	command -v protoc >/dev/null 2>&1 || return 1
	command -v tmux >/dev/null 2>&1 || return 1
	command -v clang >/dev/null 2>&1 || return 1
	[ -x /usr/bin/time ] || return 1
	pkg-config --exists libprotobuf-c zlib ncursesw cmocka grpc 2>/dev/null || return 1
	/usr/bin/python3 -c 'import grpc' 2>/dev/null || return 1
	/usr/bin/python3 -c 'import google.protobuf' 2>/dev/null || return 1
	/usr/bin/python3 -c 'import PIL' 2>/dev/null || return 1
	[ -r /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ] || return 1
	# libFuzzer and the sanitizer runtimes come with clang's runtime package.
	ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 || return 1
	return 0
}

BENCH_PKGS="g++ libprotobuf-dev protobuf-compiler"

have_bench() {
	command -v g++ >/dev/null 2>&1 || return 1
	command -v protoc >/dev/null 2>&1 || return 1
	pkg-config --exists protobuf 2>/dev/null || return 1
	return 0
}

if [ "${1:-}" = "--check" ]; then
	have_all
	exit $?
fi
if [ "${1:-}" = "--bench" ]; then
	have_bench && exit 0
	PKGS=$BENCH_PKGS
	have_all() { have_bench; }
fi

if have_all; then
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
echo "deps.sh: installing Debian packages: $PKGS" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
have_all || { echo "deps.sh: dependencies still missing after install" >&2; exit 1; }
