# xtop — plain GNU Makefile.
#   make            build build/xtop and build/xtop-gen
#   make demo       generate the bundled demo profile and open it in the viewer
#   make check      run every test: unit, fixtures, oracle, bad input, under
#                   ASan/UBSan too, the threads under TSan, and a short fuzz run
#   make test       the suite in the normal build only (quicker)
#   make asan       the suite in an ASan/UBSan build only (build-asan/)
#   make fuzz       build and run the libFuzzer target for a while
#   make bench      every figure of docs/performance.md: speed, memory, frame time,
#                   first frame, against a libprotobuf parse of the same files (bench/)
#   make screenshots  regenerate screenshots/*.png from the viewer in tmux
#   make install    copy build/xtop to $(DESTDIR)$(PREFIX)/bin (default /usr/local/bin)
# Conventional variables are honoured: CC, CFLAGS, CPPFLAGS, LDFLAGS, PREFIX, DESTDIR.

CC       ?= cc
O        ?= build
PREFIX   ?= /usr/local
CFLAGS   ?= -O2 -g
WERROR   ?=
XCFLAGS  := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wno-unused-parameter $(WERROR) \
            -pthread -MMD -MP
PKGS     := zlib
# Recursive (=): on a fresh machine pkg-config and the libraries arrive with
# the deps step, after the Makefile was read; links expand these later.
LIBS      = $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lz) -pthread -lm
CURSES_LIBS = $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)
# gRPC is not linked: src/capture/grpc_call.c loads it when a capture
# starts (linked, it and the libraries it needs cost every run about 5 ms
# of dynamic loading). The build names the file it loads, libgrpc's soname.
CAP_LIBS  = $(shell pkg-config --libs libprotobuf-c 2>/dev/null || echo -lprotobuf-c) -ldl
GRPC_SONAME = $(shell objdump -p "$$($(CC) -print-file-name=libgrpc.so)" 2>/dev/null | \
                awk '$$1 == "SONAME" { print $$2 }')

# Dependencies come in two sets (scripts/deps.sh): `build` for make, `test`
# for make check. A missing set is installed first: every rule that needs
# it lists its step as an order-only prerequisite (after the |), so even
# make -j8 on a fresh machine runs nothing (protoc-c, cc) before the
# packages are there, and an installed machine never reruns the step.
DEPS_SH  ?= scripts/deps.sh
DEPS_OK  := $(shell $(DEPS_SH) --check build >/dev/null 2>&1 && echo yes)
TEST_DEPS_OK := $(shell $(DEPS_SH) --check test >/dev/null 2>&1 && echo yes)
NEED_DEPS := $(if $(DEPS_OK),,deps)
NEED_TEST_DEPS := $(if $(TEST_DEPS_OK),,deps-test)

UTIL_SRC  := $(wildcard src/util/*.c)
MODEL_SRC := $(wildcard src/model/*.c)
CLI_SRC   := $(filter-out src/cli/capture_cmd.c src/cli/run_cmd.c src/cli/top_cmd.c,$(wildcard src/cli/*.c))
UI_SRC    := $(wildcard src/ui/*.c)
CAP_SRC   := $(wildcard src/capture/*.c) src/cli/capture_cmd.c src/cli/run_cmd.c src/cli/top_cmd.c
CORE_SRC  := $(UTIL_SRC) $(MODEL_SRC) $(CLI_SRC)
CORE_OBJ  := $(CORE_SRC:%.c=$(O)/%.o)
UI_OBJ    := $(UI_SRC:%.c=$(O)/%.o)
CAP_OBJ   := $(CAP_SRC:%.c=$(O)/%.o) $(O)/gen/profiler_service.pb-c.o $(O)/gen/profiler_options.pb-c.o
MAIN_OBJ  := $(O)/src/main.o
GEN_SRC   := $(wildcard tools/gen/*.c)

PROTO_GEN := $(O)/gen/xplane.pb-c.c $(O)/gen/xplane.pb-c.h $(O)/gen/hlo_subset.pb-c.c \
             $(O)/gen/hlo_subset.pb-c.h
CAP_GEN   := $(O)/gen/profiler_service.pb-c.c $(O)/gen/profiler_service.pb-c.h \
             $(O)/gen/profiler_options.pb-c.c $(O)/gen/profiler_options.pb-c.h
.SECONDARY: $(PROTO_GEN) $(CAP_GEN)

.PHONY: all deps deps-test demo tests check test asan fuzz bench clean install format screenshots

all: $(O)/xtop $(O)/xtop-gen

deps:
	$(DEPS_SH) build

# After the build set, so two package installs never run at once.
deps-test: | $(NEED_DEPS)
	$(DEPS_SH) test

$(O)/xtop: $(CORE_OBJ) $(UI_OBJ) $(CAP_OBJ) $(MAIN_OBJ)
	$(CC) $(CFLAGS) $(XCFLAGS) $(LDFLAGS) -o $@ $^ $(CURSES_LIBS) $(CAP_LIBS) $(LIBS)

# The capture code includes the generated protobuf-c headers.
$(O)/src/capture/%.o: src/capture/%.c $(O)/gen/profiler_service.pb-c.h $(O)/gen/profiler_options.pb-c.h \
		      | $(NEED_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) $(CAP_DEFS) -I$(O)/gen -c -o $@ $<
$(O)/src/capture/grpc_call.o: CAP_DEFS = $(if $(GRPC_SONAME),-DXT_GRPC_SONAME='"$(GRPC_SONAME)"')

$(O)/gen/%.pb-c.o: $(O)/gen/%.pb-c.c $(O)/gen/profiler_options.pb-c.h | $(NEED_DEPS)
	$(CC) $(CPPFLAGS) $(CFLAGS) -std=c11 -I$(O)/gen -c -o $@ $<

$(O)/xtop-gen: $(GEN_SRC) $(wildcard tools/gen/*.h) src/model/wire.h | $(NEED_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(XCFLAGS) $(LDFLAGS) -o $@ $(GEN_SRC) $(LIBS)

$(O)/%.o: %.c | $(NEED_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) -c -o $@ $<

# protobuf-c code is generated at build time from our own proto/ files; only
# tests and writers use it (the reader decodes the wire format itself).
$(O)/gen/%.pb-c.c $(O)/gen/%.pb-c.h: proto/%.proto | $(NEED_DEPS)
	@mkdir -p $(@D)
	protoc-c --c_out=$(O)/gen -Iproto $<

# ---- tests ----
TEST_SRC := $(wildcard tests/unit/test_*.c)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(O)/tests/%)
# Recursive (=) like LIBS: on a fresh machine cmocka arrives with deps-test.
TEST_LIBS = $(shell pkg-config --libs cmocka libprotobuf-c 2>/dev/null || echo -lcmocka -lprotobuf-c) \
            $(LIBS)

$(O)/tests/%: tests/unit/%.c tests/unit/testutil.h $(CORE_OBJ) $(PROTO_GEN) | $(NEED_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) -I$(O)/gen -Isrc -o $@ $< $(O)/gen/xplane.pb-c.c \
	    $(O)/gen/hlo_subset.pb-c.c $(CORE_OBJ) $(filter $(O)/src/ui/%.o $(O)/src/capture/%.o,$^) \
	    $(TEST_LIBS)

# The UI code that never touches curses is unit-tested too, and capture's
# reading of a workload.
$(O)/tests/test_panel: $(O)/src/ui/panel.o $(O)/src/ui/panel_fit.o $(O)/src/ui/cellrow.o $(O)/src/ui/textview.o
$(O)/tests/test_loop: $(O)/src/ui/loop.o
$(O)/tests/test_workload: $(O)/src/capture/workload.o $(O)/src/capture/xla_flags.o
$(O)/tests/test_xla_flags: $(O)/src/capture/xla_flags.o

tests: all $(TEST_BIN) | $(NEED_TEST_DEPS)

# The whole suite: normal build, the same under ASan/UBSan, the threads under
# TSan (xtop alone: tests/e2e/test_tsan.sh; where TSan cannot build, those
# checks say so and skip), and a short fuzz run; run_all.sh prints one
# "N passed, N failed" line for all of it.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=undefined
TSAN_FLAGS := -O1 -g -fsanitize=thread
check: tests
	$(MAKE) --no-print-directory O=build-asan CC=clang CFLAGS="$(ASAN_FLAGS)" \
	    LDFLAGS="-fsanitize=address,undefined" tests
	-$(MAKE) --no-print-directory O=build-tsan CC=clang CFLAGS="$(TSAN_FLAGS)" \
	    LDFLAGS="-fsanitize=thread" build-tsan/xtop
	$(MAKE) --no-print-directory $(O)/fuzz/fuzz_xplane
	@BUILDS="$(O) build-asan" TSAN=build-tsan/xtop FUZZ=$(O)/fuzz/fuzz_xplane \
	    FUZZ_SECONDS=$(CHECK_FUZZ_SECONDS) sh tests/run_all.sh

# Only the normal build (quicker while developing).
test: tests
	@BUILDS="$(O)" sh tests/run_all.sh

asan:
	$(MAKE) O=build-asan CC=clang CFLAGS="$(ASAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" test

# ---- fuzzing (clang's libFuzzer) ----
FUZZ_SECONDS ?= 60
CHECK_FUZZ_SECONDS ?= 30
$(O)/fuzz/fuzz_xplane: tests/fuzz/fuzz_xplane.c $(CORE_SRC) $(wildcard src/*/*.h) | $(NEED_TEST_DEPS)
	@mkdir -p $(@D)
	clang -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined -pthread \
	    -o $@ tests/fuzz/fuzz_xplane.c $(CORE_SRC) $(LIBS)

fuzz: $(O)/fuzz/fuzz_xplane $(O)/xtop-gen
	@mkdir -p $(O)/fuzz/corpus
	@test -s $(O)/fuzz/corpus/gen-tpu.pb || $(O)/xtop-gen --kind tpu --events 300 -o $(O)/fuzz/corpus/gen-tpu.pb
	@test -s $(O)/fuzz/corpus/gen-gpu.pb || $(O)/xtop-gen --kind gpu --events 300 -o $(O)/fuzz/corpus/gen-gpu.pb
	@cp tests/fuzz/regress/*.pb $(O)/fuzz/corpus/
	$(O)/fuzz/fuzz_xplane -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -max_len=65536 \
	    $(O)/fuzz/corpus

$(O)/bench_window: bench/bench_window.c $(CORE_OBJ)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) $(LDFLAGS) -o $@ $< $(CORE_OBJ) $(LIBS)

$(O)/bench_shape: bench/bench_shape.c $(CORE_OBJ)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) $(LDFLAGS) -o $@ $< $(CORE_OBJ) $(LIBS)

$(O)/bench_frame: bench/bench_frame.c $(CORE_OBJ) $(UI_OBJ) $(CAP_OBJ)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) $(LDFLAGS) -o $@ $< $(CORE_OBJ) $(UI_OBJ) \
	    $(filter-out $(O)/src/cli/capture_cmd.o $(O)/src/cli/run_cmd.o $(O)/src/cli/top_cmd.o,$(CAP_OBJ)) \
	    $(CURSES_LIBS) \
	    $(CAP_LIBS) $(LIBS)

# The libprotobuf yardstick: Debian's libprotobuf with generated C++ classes
# (scripts/deps.sh bench installs g++ and libprotobuf-dev).
$(O)/bench/pb_parse: bench/pb_parse.cc proto/xplane.proto
	@mkdir -p $(O)/bench/pb
	protoc --cpp_out=$(O)/bench/pb -Iproto proto/xplane.proto
	g++ -O2 -std=c++17 -I$(O)/bench/pb -o $@ bench/pb_parse.cc $(O)/bench/pb/xplane.pb.cc \
	    $$(pkg-config --cflags --libs protobuf)

# The floor: one core reading every event's fields and nothing else.
$(O)/bench/bare_decode: bench/bare_decode.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) $(LDFLAGS) -o $@ $<

bench: all $(O)/bench_window $(O)/bench_frame $(O)/bench_shape $(O)/bench/bare_decode \
       | $(NEED_TEST_DEPS)
	scripts/deps.sh bench
	$(MAKE) --no-print-directory $(O)/bench/pb_parse
	sh bench/bench.sh

demo: all
	@mkdir -p $(O)/demo
	@test -s $(O)/demo/demo.xplane.pb || $(O)/xtop-gen --kind tpu --events 200000 --seed 7 \
	    -o $(O)/demo/demo.xplane.pb
	$(O)/xtop $(O)/demo/demo.xplane.pb

# PNG screenshots of the viewer, from real runs in tmux (tests/tui/).
screenshots: all | $(NEED_TEST_DEPS)
	O=$(O) sh tests/tui/screenshots.sh screenshots

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(O)/xtop $(DESTDIR)$(PREFIX)/bin/xtop

format:
	clang-format -i $(CORE_SRC) $(UI_SRC) $(CAP_SRC) src/main.c $(wildcard src/*/*.h)

clean:
	rm -rf build build-asan build-tsan

include mk/agent.mk

-include $(CORE_OBJ:.o=.d) $(UI_OBJ:.o=.d) $(CAP_OBJ:.o=.d) $(MAIN_OBJ:.o=.d)
