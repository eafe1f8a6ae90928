# The libraries that go into other programs, and their tests; included by
# the Makefile. They are built with -fPIC and hidden symbols (each exports
# only its API), and link nothing of xtop's: src/trace/ uses libc,
# libpthread and libdl alone.
#   libxtop-trace.so / .a   the C API of include/xtop/trace.h

PIC_FLAGS  := -fPIC -fvisibility=hidden
TRACE_SRC  := src/trace/trace.c
TRACE_PIC  := $(TRACE_SRC:%.c=$(O)/pic/%.o)
XT_LIBS    := $(O)/libxtop-trace.so $(O)/libxtop-trace.a

all: $(XT_LIBS)

$(O)/pic/%.o: %.c
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

# Unit tests that need the libraries' objects (explicit rules win over the
# Makefile's pattern rule for tests/unit/test_*.c).
$(O)/tests/test_trace_api: tests/unit/test_trace_api.c $(O)/libxtop-trace.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) -Iinclude -Isrc $(LDFLAGS) -o $@ $< \
	    $(O)/libxtop-trace.a $(TEST_LIBS) -ldl

# ---- the C API's cost (make bench) ----
$(O)/bench_trace: bench/bench_trace.c include/xtop/trace.h $(O)/libxtop-trace.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) -Iinclude -Isrc $(LDFLAGS) -o $@ $< \
	    $(O)/libxtop-trace.a -ldl -pthread

bench: $(O)/bench_trace

# ---- install ----
install: install-libs

install-libs: $(XT_LIBS)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/xtop
	install -m 755 $(O)/libxtop-trace.so $(DESTDIR)$(PREFIX)/lib/libxtop-trace.so
	install -m 644 $(O)/libxtop-trace.a $(DESTDIR)$(PREFIX)/lib/libxtop-trace.a
	install -m 644 include/xtop/trace.h $(DESTDIR)$(PREFIX)/include/xtop/trace.h

.PHONY: install-libs

-include $(TRACE_PIC:.o=.d)
