/*
 * attach: finds the profiler server of a local process. A process that
 * called jax.profiler.start_server(port) (or TensorFlow's) listens on a TCP
 * port; its socket inodes in /proc/PID/fd are matched against the
 * listening sockets of /proc/PID/net/tcp{,6}.
 */
#ifndef XT_ATTACH_H
#define XT_ATTACH_H

#include <stddef.h>
#include <sys/types.h>

#include "../util/error.h"

/* Lists the TCP ports pid listens on into ports (at most max); returns the
 * count, or a negative XT_E* with err set (no such process, another user's
 * process). */
int attach_listening_ports(pid_t pid, int *ports, int max, struct xt_error *err);

/* Finds pid's profiler server: addr gets "localhost:PORT". When the process
 * listens on several ports, each is asked for the profiler service. Returns
 * 0; XT_ENOENT when it has none (err says why, briefly: the caller adds
 * what to do); another negative XT_E* with err (no such process, another
 * user's process). */
int attach_find(pid_t pid, char *addr, size_t n, struct xt_error *err);

#endif
