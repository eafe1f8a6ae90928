/*
 * agent_proto: the protocol between xtop and the agent (libxtop-agent.so)
 * inside a workload, and where the agent's socket lives. Header-only: the
 * agent may link nothing of xtop's (no exit-on-error helpers), and xtop's
 * client includes the same definitions. docs/agent.md describes it for
 * people writing other clients.
 *
 * Socket: $XDG_RUNTIME_DIR/xtop/agent-PID.sock, else
 * /tmp/xtop-UID/agent-PID.sock; the directory is 0700 and owned by the
 * workload's user, the socket 0600. The agent accepts only peers of its own
 * uid (SO_PEERCRED); the client accepts only a socket whose peer is the PID
 * it asked for.
 *
 * Messages, both ways: a 16-byte header, then `len` bytes of payload.
 *
 *   offset 0  u32 magic    AGENT_MAGIC ("xtop" in memory order on x86)
 *          4  u16 version  AGENT_VERSION; a mismatch gets AGENT_REP_ERROR
 *          6  u16 type     AGENT_REQ_* or AGENT_REP_*
 *          8  u64 len      payload bytes (requests: at most AGENT_MAX_REQUEST)
 *
 * All integers little-endian. One request, one reply, in order:
 *
 *   STATUS   (no payload)            -> OK: "key=value\n" lines (version, pid,
 *                                       uid, state, plugins, plugin=..., trace_libs,
 *                                       xla_flags=VALUE or xla_flags_set=0)
 *   START    serialized tensorflow.ProfileOptions
 *                                    -> OK: the same kind of lines, saying what
 *                                       was started; or ERROR (busy, nothing
 *                                       to profile)
 *   STOP     (no payload)            -> OK
 *   COLLECT  (no payload)            -> XSPACE: a serialized tensorflow.profiler.
 *                                       XSpace (stops first if still running)
 *   anything else / malformed        -> ERROR: one line of text
 *
 * One capture at a time per process, owned by the connection that sent
 * START; when that connection closes, its capture is stopped and dropped.
 */
#ifndef XT_AGENT_PROTO_H
#define XT_AGENT_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define AGENT_MAGIC 0x706f7478u /* bytes 'x' 't' 'o' 'p' */
#define AGENT_VERSION 1
#define AGENT_HDR_SIZE 16
#define AGENT_MAX_REQUEST (1u << 20)
/* The longest XLA_FLAGS a STATUS reply carries (a longer one is left out:
 * the reader falls back on the environment the process started with). */
#define AGENT_FLAGS_MAX 4096

enum agent_msg {
	AGENT_REQ_STATUS = 1,
	AGENT_REQ_START = 2,
	AGENT_REQ_STOP = 3,
	AGENT_REQ_COLLECT = 4,
	AGENT_REP_OK = 0x81,
	AGENT_REP_ERROR = 0x82,
	AGENT_REP_XSPACE = 0x83,
};

struct agent_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint64_t len;
};

static inline void agent_hdr_pack(uint8_t b[AGENT_HDR_SIZE], uint16_t type, uint64_t len)
{
	uint32_t m = AGENT_MAGIC;
	int i;

	for (i = 0; i < 4; i++)
		b[i] = (uint8_t)(m >> (8 * i));
	b[4] = AGENT_VERSION & 0xff;
	b[5] = AGENT_VERSION >> 8;
	b[6] = (uint8_t)(type & 0xff);
	b[7] = (uint8_t)(type >> 8);
	for (i = 0; i < 8; i++)
		b[8 + i] = (uint8_t)(len >> (8 * i));
}

static inline void agent_hdr_unpack(const uint8_t b[AGENT_HDR_SIZE], struct agent_hdr *h)
{
	int i;

	h->magic = 0;
	h->len = 0;
	for (i = 0; i < 4; i++)
		h->magic |= (uint32_t)b[i] << (8 * i);
	h->version = (uint16_t)(b[4] | b[5] << 8);
	h->type = (uint16_t)(b[6] | b[7] << 8);
	for (i = 0; i < 8; i++)
		h->len |= (uint64_t)b[8 + i] << (8 * i);
}

/* Directory of the sockets for a user: "<xdg>/xtop" when xdg is set and not
 * empty, else "/tmp/xtop-<uid>". Returns 0, or -1 when it does not fit. */
static inline int agent_socket_dir(char *buf, size_t n, const char *xdg, unsigned uid)
{
	int k = xdg && *xdg ? snprintf(buf, n, "%s/xtop", xdg) : snprintf(buf, n, "/tmp/xtop-%u", uid);

	return k < 0 || (size_t)k >= n ? -1 : 0;
}

/* The socket of process pid in dir; -1 when it does not fit a sun_path
 * (108 bytes with its NUL). */
static inline int agent_socket_path(char *buf, size_t n, const char *dir, long pid)
{
	int k = snprintf(buf, n, "%s/agent-%ld.sock", dir, pid);

	return k < 0 || (size_t)k >= n || k >= 108 ? -1 : 0;
}

/* Finds "key=" at the start of a line of a key=value payload; copies the
 * value (up to the line's end) into out. Returns 1 when found. */
static inline int agent_kv(const char *text, size_t len, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key), i = 0;

	while (i < len) {
		size_t e = i;

		while (e < len && text[e] != '\n')
			e++;
		if (e - i > kl && !memcmp(text + i, key, kl) && text[i + kl] == '=') {
			size_t vl = e - i - kl - 1;

			if (n) {
				if (vl >= n)
					vl = n - 1;
				memcpy(out, text + i + kl + 1, vl);
				out[vl] = '\0';
			}
			return 1;
		}
		i = e + 1;
	}
	return 0;
}

#endif
