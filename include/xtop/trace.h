/*
 * xtop/trace.h: annotations and step markers for xtop's captures, from any
 * C, C++, Rust or Swift program, with or without JAX/XLA (PJRT).
 *
 * Link with libxtop-trace (-lxtop-trace; the static libxtop-trace.a also
 * needs -lpthread -ldl on glibc older than 2.34). Run the program under the
 * xtop agent (`xtop run -- PROGRAM`); `xtop capture PID` or the viewer
 * (`xtop --attach PID`) then records, for the length of the capture, every
 * span and marker made through these calls, on one line per thread of the
 * /host:CPU plane of the saved profile, beside the device planes of any
 * PJRT plugin the program loaded.
 *
 * Cost: while no capture runs, each call is one relaxed atomic load and a
 * return. During a capture, events go to a lock-free buffer of the calling
 * thread (two clock reads and a copy of the name per span); the memory is
 * bounded, and what does not fit is counted and reported as dropped.
 * Without the agent nothing is ever recorded.
 *
 * Names follow TensorFlow's TraceMe encoding: "name#key=value,key=value#"
 * attaches metadata, each key becoming a stat of the event (an integer, a
 * float or a string, as upstream parses it), e.g.
 *     xtop_trace_begin("load_batch#batch=32,source=disk#");
 * Names are copied: they may be temporary.
 *
 * Every function is thread-safe, async-signal-unsafe, and cannot fail or
 * abort: when memory runs out, events are dropped.
 */
#ifndef XTOP_TRACE_H
#define XTOP_TRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XTOP_TRACE_API_VERSION 1

/* Opens a span named name on the calling thread; spans nest. */
void xtop_trace_begin(const char *name);
/* Closes the calling thread's innermost open span (a call with none open
 * is ignored). A span still open when the capture stops ends there. */
void xtop_trace_end(void);
/* Records a zero-length event. */
void xtop_trace_instant(const char *name);
/* Opens a training step: a span named "train" with the stats step_num=step
 * and _r=1, the convention of XLA's StepTraceAnnotation, so xtop's steps
 * view and XProf's step analysis use it. Close it with xtop_step_end(). */
void xtop_step_begin(int64_t step);
void xtop_step_end(void);
/* 1 while a capture is recording, else 0: lets a caller skip building an
 * expensive name. */
int xtop_trace_active(void);

#ifdef __cplusplus
}

namespace xtop {
/* A span for the lifetime of a scope: xtop::Trace t("decode#frame=7#"); */
class Trace {
public:
	explicit Trace(const char *name) { xtop_trace_begin(name); }
	~Trace() { xtop_trace_end(); }
	Trace(const Trace &) = delete;
	Trace &operator=(const Trace &) = delete;
};
/* A training step for the lifetime of a scope. */
class Step {
public:
	explicit Step(int64_t n) { xtop_step_begin(n); }
	~Step() { xtop_step_end(); }
	Step(const Step &) = delete;
	Step &operator=(const Step &) = delete;
};
} /* namespace xtop */
#endif

#endif
