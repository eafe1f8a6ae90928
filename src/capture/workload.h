/*
 * workload: what became of a local workload process during a capture, so a
 * lost connection can be told apart from a workload that died, and the
 * death described (exit status or signal) where it can be known: for a
 * child xtop started, from waitpid(); for a workload `xtop run` started,
 * from the agent-PID.exit file it writes beside the agent's socket; else
 * from the exit code of its zombie in /proc/PID/stat, while its parent has
 * not yet reaped it.
 */
#ifndef XT_WORKLOAD_H
#define XT_WORKLOAD_H

#include <stddef.h>
#include <sys/types.h>

/* Marks pid as a child xtop started (xtop --attach -- CMD): its exit status
 * is reaped and kept here. At most a few are remembered. Can't fail. */
void workload_adopt(pid_t pid);

/*
 * Returns 1 when pid has ended, with desc saying how ("killed by signal 11
 * (SIGSEGV)", "exited with status 1", "exited" when unknown) and *crashed
 * set when that looks like a crash rather than a deliberate end; 0 while it
 * runs. A process that is still dying is given up to wait_ms to finish.
 * dir, when not NULL, is where its agent's socket was (the exit file is
 * looked for there first). Thread-safe.
 */
int workload_ended(pid_t pid, int wait_ms, const char *dir, char *desc, size_t n, int *crashed);

/* The private directory (created when missing) where xtop run records how
 * its workloads end: the agent's socket directory for this user. Returns 0,
 * or -1 when it is not usable (not ours, open to others). */
int workload_exit_dir(char *dir, size_t n);
/* Removes a record left for pid by an earlier process with that PID. */
void workload_forget_exit(pid_t pid);

/* The variable name in the environment pid started with (its own, which
 * may differ from xtop's), into out; returns 1, or 0 when it has none or
 * it cannot be read, -1 when its value does not fit in n (out "" both
 * ways). Thread-safe. */
int workload_env(pid_t pid, const char *name, char *out, size_t n);
/* What program pid runs, as a string: its start time, a space, then its
 * command line (arguments joined by spaces), into out; -1 when it cannot
 * be read or is empty (gone, a zombie). Two readings differ when it exec'd
 * another program, or when the PID is another process's (the start time
 * first). */
int workload_identity(pid_t pid, char *out, size_t n);
/* 1 when pid has XLA's CUDA plugin loaded and its XLA_FLAGS leave CUDA
 * command buffers on, which a capture can crash (launch.h); 0 otherwise or
 * when /proc cannot tell. flags_on is what its flags say now when known
 * (the agent reads the process's live environment: a script may have set
 * XLA_FLAGS itself before importing JAX), else -1: the environment it
 * started with, from /proc, read as XLA reads it (xla_flags.h). */
int workload_cmdbuf_on(pid_t pid, int flags_on);

#endif
