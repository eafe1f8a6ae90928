/* attach: see attach.h. */
#include "attach.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grpc_call.h"
#include "profiler_msgs.h"

static int socket_inodes(pid_t pid, unsigned long *ino, int max, struct xt_error *err)
{
	char path[64], link[128];
	DIR *d;
	struct dirent *de;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d) {
		if (errno == EACCES || errno == EPERM)
			return xt_error_set(err, XT_EIO,
					    "process %d belongs to another user: run xtop as that user "
					    "(or root), or give its HOST:PORT",
					    (int)pid);
		return xt_error_set(err, XT_ENOENT, "no process with PID %d", (int)pid);
	}
	while ((de = readdir(d)) && n < max) {
		char fd[600];
		ssize_t k;

		if (de->d_name[0] == '.')
			continue;
		snprintf(fd, sizeof(fd), "%s/%s", path, de->d_name);
		k = readlink(fd, link, sizeof(link) - 1);
		if (k <= 0)
			continue;
		link[k] = '\0';
		if (!strncmp(link, "socket:[", 8))
			ino[n++] = strtoul(link + 8, NULL, 10);
	}
	closedir(d);
	return n;
}

static int scan_tcp(pid_t pid, const char *file, const unsigned long *ino, int nino, int *ports,
		    int n, int max)
{
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/net/%s", (int)pid, file);
	f = fopen(path, "r");
	if (!f)
		return n;
	if (!fgets(line, sizeof(line), f)) { /* header */
		fclose(f);
		return n;
	}
	while (fgets(line, sizeof(line), f) && n < max) {
		char local[128], rem[128];
		unsigned st, port;
		unsigned long inode;
		int i;

		/* sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode */
		if (sscanf(line, "%*d: %127s %127s %x %*s %*s %*s %*u %*u %lu", local, rem, &st,
			   &inode) != 4)
			continue;
		if (st != 0x0A) /* TCP_LISTEN */
			continue;
		for (i = 0; i < nino; i++) {
			const char *colon = strrchr(local, ':');

			if (ino[i] != inode || !colon)
				continue;
			port = (unsigned)strtoul(colon + 1, NULL, 16);
			{
				int k, dup = 0;

				for (k = 0; k < n; k++)
					dup |= ports[k] == (int)port;
				if (!dup)
					ports[n++] = (int)port;
			}
		}
	}
	fclose(f);
	return n;
}

int attach_listening_ports(pid_t pid, int *ports, int max, struct xt_error *err)
{
	unsigned long ino[4096];
	int nino, n = 0;

	if (pid <= 0)
		return xt_error_set(err, XT_EUSAGE, "bad PID %d", (int)pid);
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return xt_error_set(err, XT_ENOENT, "no process with PID %d", (int)pid);
	nino = socket_inodes(pid, ino, (int)(sizeof(ino) / sizeof(ino[0])), err);
	if (nino < 0)
		return nino;
	n = scan_tcp(pid, "tcp", ino, nino, ports, n, max);
	n = scan_tcp(pid, "tcp6", ino, nino, ports, n, max);
	return n;
}

int attach_find(pid_t pid, char *addr, size_t n, struct xt_error *err)
{
	int ports[64], np, i;

	np = attach_listening_ports(pid, ports, 64, err);
	if (np < 0)
		return np;
	if (np == 0)
		return xt_error_set(err, XT_ENOENT, "it listens on no TCP port");
	if (np == 1) {
		snprintf(addr, n, "localhost:%d", ports[0]);
		return 0;
	}
	/* Several ports: ask each for the profiler service. Terminate on an
	 * unknown session is harmless; anything but UNIMPLEMENTED or an
	 * unreachable port means the service is there. */
	if (grpc_call_init() < 0)
		return xt_error_set(err, XT_EIO, "%s", grpc_call_load_error());
	for (i = 0; i < np; i++) {
		struct grpc_reply r;
		size_t len;
		uint8_t *req = profiler_msgs_terminate_request("xtop-probe", &len);
		char target[64];

		snprintf(target, sizeof(target), "localhost:%d", ports[i]);
		grpc_call_unary(target, "/tensorflow.ProfilerService/Terminate", req, len, 2000, NULL,
				NULL, NULL, &r);
		free(req);
		free(r.data);
		if (r.status == 0 || (r.status != 12 && r.status != 14 && r.status != 4)) {
			snprintf(addr, n, "%s", target);
			grpc_call_shutdown();
			return 0;
		}
	}
	grpc_call_shutdown();
	return xt_error_set(err, XT_ENOENT, "none of its %d TCP ports runs the profiler service",
			    np);
}
