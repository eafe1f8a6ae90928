# The libraries that go into other programs, and their tests; included by
# the Makefile. They are built with -fPIC and hidden symbols (each exports
# only its API), and link nothing of xtop's: src/trace/ and src/agent/ use
# libc, libpthread and libdl alone (the agent's no-exit rule, docs/agent.md).
#   libxtop-trace.so / .a   the C API of include/xtop/trace.h
#   libxtop-agent.so        the agent `xtop run` preloads

PIC_FLAGS  := -fPIC -fvisibility=hidden
TRACE_SRC  := src/trace/trace.c
AGENT_SRC  := $(wildcard src/agent/*.c)
TRACE_PIC  := $(TRACE_SRC:%.c=$(O)/pic/%.o)
AGENT_PIC  := $(AGENT_SRC:%.c=$(O)/pic/%.o)
XT_LIBS    := $(O)/libxtop-trace.so $(O)/libxtop-trace.a $(O)/libxtop-agent.so

all: $(XT_LIBS)

$(O)/pic/%.o: %.c | $(NEED_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) $(PIC_FLAGS) -c -o $@ $<

# nodelete: a thread's buffer outlives any dlclose (its key destructor
# would otherwise point into an unmapped library).
$(O)/libxtop-trace.so: $(TRACE_PIC)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libxtop-trace.so -Wl,-z,nodelete \
	    -o $@ $^ -ldl -pthread

$(O)/libxtop-trace.a: $(TRACE_PIC)
	rm -f $@
	$(AR) rcs $@ $^

$(O)/libxtop-agent.so: $(AGENT_PIC)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-z,nodelete -o $@ $^ -ldl -pthread

# ---- tests: a fake PJRT plugin and a workload that loads it ----
# Built with the build's own CC and flags: in the ASan build the workload is
# an ASan program, so the ASan-built agent and plugin can be loaded into it.
AGENT_TESTS := $(O)/tests/agent/fake_pjrt.so $(O)/tests/agent/workload \
               $(O)/tests/agent/workload-static $(O)/tests/agent/idle \
               $(O)/tests/agent/dlcycle $(O)/tests/agent/libdlcycle.so

tests: $(AGENT_TESTS)

$(O)/tests/agent/fake_pjrt.so: tests/agent/fake_pjrt.c | $(NEED_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) -fPIC $(LDFLAGS) -shared -o $@ $<

$(O)/tests/agent/workload: tests/agent/workload.c include/xtop/trace.h $(O)/libxtop-trace.so | $(NEED_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) -Iinclude $(LDFLAGS) -o $@ $< \
	    -L$(O) -lxtop-trace -Wl,-rpath,'$$ORIGIN/../..' -ldl -pthread

$(O)/tests/agent/workload-static: tests/agent/workload.c include/xtop/trace.h $(O)/libxtop-trace.a | $(NEED_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) -Iinclude $(LDFLAGS) -o $@ $< \
	    $(O)/libxtop-trace.a -ldl -pthread

# A library with a static copy of libxtop-trace inside, loaded and
# unloaded in a loop by a program with a static copy of its own.
$(O)/tests/agent/libdlcycle.so: tests/agent/dlcycle_lib.c include/xtop/trace.h $(O)/libxtop-trace.a | $(NEED_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) -Iinclude -fPIC $(LDFLAGS) -shared -o $@ $< \
	    $(O)/libxtop-trace.a -ldl -pthread

$(O)/tests/agent/dlcycle: tests/agent/dlcycle.c include/xtop/trace.h $(O)/libxtop-trace.a | $(NEED_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) -Iinclude $(LDFLAGS) -o $@ $< \
	    $(O)/libxtop-trace.a -ldl -pthread

$(O)/tests/agent/idle: tests/agent/idle.c | $(NEED_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) $(LDFLAGS) -o $@ $< -ldl

# Unit tests that need the libraries' objects (explicit rules win over the
# Makefile's pattern rule for tests/unit/test_*.c).
$(O)/tests/test_trace_api: tests/unit/test_trace_api.c $(O)/libxtop-trace.a | $(NEED_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) -Iinclude -Isrc $(LDFLAGS) -o $@ $< \
	    $(O)/libxtop-trace.a $(TEST_LIBS) -ldl

$(O)/tests/test_agent_space: tests/unit/test_agent_space.c tests/unit/testutil.h $(CORE_OBJ) \
    $(PROTO_GEN) $(O)/pic/src/agent/agent_space.o $(O)/pic/src/agent/agent_host.o | $(NEED_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) -I$(O)/gen -Isrc $(LDFLAGS) -o $@ $< \
	    $(O)/gen/xplane.pb-c.c $(O)/pic/src/agent/agent_space.o $(O)/pic/src/agent/agent_host.o \
	    $(CORE_OBJ) $(TEST_LIBS)

# ---- the C API's cost (make bench) ----
$(O)/bench_trace: bench/bench_trace.c include/xtop/trace.h $(O)/libxtop-trace.a | $(NEED_TEST_DEPS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) -Iinclude -Isrc $(LDFLAGS) -o $@ $< \
	    $(O)/libxtop-trace.a -ldl -pthread

bench: $(O)/bench_trace

# ---- install ----
install: install-libs

install-libs: $(XT_LIBS)
	install -d $(DESTDIR)$(PREFIX)/lib/xtop $(DESTDIR)$(PREFIX)/include/xtop
	install -m 755 $(O)/libxtop-agent.so $(DESTDIR)$(PREFIX)/lib/xtop/libxtop-agent.so
	install -m 755 $(O)/libxtop-trace.so $(DESTDIR)$(PREFIX)/lib/libxtop-trace.so
	install -m 644 $(O)/libxtop-trace.a $(DESTDIR)$(PREFIX)/lib/libxtop-trace.a
	install -m 644 include/xtop/trace.h $(DESTDIR)$(PREFIX)/include/xtop/trace.h

.PHONY: install-libs

-include $(TRACE_PIC:.o=.d) $(AGENT_PIC:.o=.d)
