/*
 * xla_flags: XLA_FLAGS read as XLA reads them, for the one thing capture
 * needs of them: whether a workload runs CUDA command buffers, which a GPU
 * capture can crash (launch.h), and the value that turns them off for a
 * workload `xtop run` starts. Owns nothing; callers own what it returns.
 *
 * As XLA (xla/parse_flags_from_env.cc, tsl's command-line flags, and the
 * command-buffer setter of xla/debug_options_flags.cc): a value whose first
 * non-blank character is not '-' is the name of a file holding the flags;
 * flags are words that start with '-' and XLA stops at the first that does
 * not; a value may be quoted right after its '='; only `--NAME=VALUE`
 * counts, and the last setting wins. xla_gpu_enable_command_buffer holds a
 * set of command kinds (default FUSION, CUBLAS, CUBLASLT, CUSTOM_CALL,
 * CUDNN, DYNAMIC_SLICE_FUSION): an empty value clears it, a list replaces
 * it, a list of +KIND/-KIND changes it; graphs are off when it holds no kind
 * but INVALID. The legacy xla_gpu_graph_level (older XLA) replaces it: 0 or
 * less is off. A kind this file does not know counts as one run as graphs,
 * so that what xtop cannot read errs towards the warning.
 */
#ifndef XT_XLA_FLAGS_H
#define XT_XLA_FLAGS_H

#include <sys/types.h>

/* The largest flag file read (XLA reads any; a longer one reads as unknown). */
#define XLA_FLAGS_FILE_MAX (64 * 1024)

/*
 * 1 when XLA_FLAGS value v (NULL: unset) leaves CUDA command buffers on.
 * A flag file's name is resolved as process pid sees it (its root and
 * working directory, through /proc), or as this process does when pid is 0;
 * a file that cannot be read (XLA stops the process then) or is longer than
 * XLA_FLAGS_FILE_MAX reads as XLA's default, on.
 */
int xla_flags_cmdbuf_on(const char *v, pid_t pid);

/*
 * The XLA_FLAGS value that turns CUDA command buffers off, `off` (a flag)
 * placed before the flags of cur (NULL: unset), so that a word XLA stops at
 * cannot hide it; a flag file's content is put in its place (malloc'd).
 * NULL when cur sets command buffers itself (the user's own choice), or
 * names a flag file xtop cannot read whole or put in the environment (over
 * XLA_FLAGS_FILE_MAX, a NUL byte, unreadable): then *unread is set, and
 * the caller says that they stay on.
 */
char *xla_flags_cmdbuf_off(const char *cur, const char *off, int *unread);

#endif
