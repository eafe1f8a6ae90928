/* agent_capture: see agent_capture.h. */
#include "agent_capture.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../model/wire.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void line_add(struct abuf *b, const char *s)
{
	abuf_put(b, s, strlen(s));
	abuf_put(b, "\n", 1);
}

/* The ProfileOptions fields the agent itself needs. */
static void read_options(const uint8_t *d, size_t n, unsigned *host_level, uint64_t *duration_ms)
{
	struct wire w;

	*host_level = 2; /* when absent: ProfilerSession's default */
	*duration_ms = 0;
	wire_init(&w, d, n);
	while (wire_more(&w)) {
		uint32_t f;
		unsigned t = wire_tag(&w, &f);

		if (f == 2 && t == WIRE_VARINT)
			*host_level = (unsigned)wire_varint(&w);
		else if (f == 9 && t == WIRE_VARINT)
			*duration_ms = wire_varint(&w);
		else
			wire_skip(&w, t);
	}
}

static void describe(const struct agent_capture *c, const char *state, char *msg, size_t mn)
{
	size_t k;
	int i;

	k = (size_t)snprintf(msg, mn, "state=%s\nplugins=%d\n", state, c->nplugins);
	for (i = 0; i < c->nplugins && k < mn; i++)
		k += (size_t)snprintf(msg + k, mn - k, "plugin=%s (PJRT %d.%d)%s\n",
				      c->plugins[i].path, c->plugins[i].major, c->plugins[i].minor,
				      c->plugins[i].error[0] ? " failed" : "");
	if (k < mn)
		snprintf(msg + k, mn - k, "trace_libs=%d\n", c->nregs);
}

void agent_capture_status(const struct agent_capture *c, char *msg, size_t mn)
{
	static const char *const names[] = { "idle", "capturing", "stopped" };
	struct agent_capture probe;
	char note[512];

	if (c->state != AGENT_IDLE) {
		describe(c, names[c->state], msg, mn);
		return;
	}
	/* Idle: what a capture would find now. */
	memset(&probe, 0, sizeof(probe));
	probe.nplugins = agent_pjrt_find(probe.plugins, AGENT_MAX_PLUGINS, note, sizeof(note));
	probe.nregs = agent_trace_registries(probe.regs, AGENT_MAX_REGISTRIES);
	describe(&probe, "idle", msg, mn);
	for (int i = 0; i < probe.nplugins; i++)
		agent_pjrt_release(&probe.plugins[i]);
}

int agent_capture_start(struct agent_capture *c, const uint8_t *opts, size_t n, char *msg,
			size_t mn)
{
	char note[512];
	unsigned host_level;
	int i, started = 0;

	if (c->state != AGENT_IDLE) {
		snprintf(msg, mn, "this process is already being captured (one capture at a time)");
		return -1;
	}
	memset(c, 0, sizeof(*c));
	read_options(opts, n, &host_level, &c->duration_ms);
	c->nplugins = agent_pjrt_find(c->plugins, AGENT_MAX_PLUGINS, note, sizeof(note));
	c->nregs = host_level ? agent_trace_registries(c->regs, AGENT_MAX_REGISTRIES) : 0;
	if (!c->nplugins && !c->nregs) {
		snprintf(msg, mn,
			 "nothing to profile yet: no loaded PJRT plugin has a profiler (JAX loads its "
			 "plugin at its first computation)%s%.300s, and the process does not use "
			 "libxtop-trace",
			 note[0] ? "; " : "", note);
		agent_capture_release(c);
		return -1;
	}
	if (note[0])
		line_add(&c->warnings, note);
	c->start_ns = now_ns();
	agent_trace_lock();
	for (i = 0; i < c->nregs; i++) {
		if (!agent_trace_held(c->regs[i])) {
			c->regs[i] = NULL; /* unloaded since */
		} else if (c->regs[i]->start(0) < 0) {
			line_add(&c->errors, "libxtop-trace: a copy was already recording (another capture?)");
			c->regs[i] = NULL;
		} else {
			started++;
		}
	}
	agent_trace_unlock();
	for (i = 0; i < c->nplugins; i++) {
		if (agent_pjrt_start(&c->plugins[i], opts, n) < 0)
			line_add(&c->errors, c->plugins[i].error);
		else
			started++;
	}
	if (!started) {
		snprintf(msg, mn, "no profiler could start: %.600s",
			 c->nplugins ? c->plugins[0].error : "libxtop-trace is busy");
		agent_capture_release(c);
		return -1;
	}
	c->state = AGENT_RUNNING;
	describe(c, "capturing", msg, mn);
	return 0;
}

void agent_capture_stop(struct agent_capture *c)
{
	int i;

	if (c->state != AGENT_RUNNING)
		return;
	for (i = 0; i < c->nplugins; i++)
		if (agent_pjrt_stop(&c->plugins[i]) < 0)
			line_add(&c->errors, c->plugins[i].error);
	agent_trace_lock();
	for (i = 0; i < c->nregs; i++)
		if (agent_trace_held(c->regs[i]))
			c->regs[i]->stop();
	agent_trace_unlock();
	c->stop_ns = now_ns();
	c->state = AGENT_STOPPED;
}

/* Emits '\n'-separated lines as XSpace strings of field f. */
static void emit_lines(struct space_out *o, uint32_t f, const struct abuf *b)
{
	size_t i = 0;

	while (i < b->n) {
		size_t e = i;
		char line[1024];

		while (e < b->n && b->p[e] != '\n')
			e++;
		snprintf(line, sizeof(line), "%.*s", (int)(e - i), (const char *)b->p + i);
		abuf_u8_fix(line, line, strlen(line)); /* a plugin's text, cut at 1023 bytes */
		if (line[0])
			space_emit_string(o, f, line);
		i = e + 1;
	}
}

int agent_capture_collect(struct agent_capture *c, char *msg, size_t mn)
{
	struct space_scan sc;
	int i, target = -1;
	long plane = -1;
	int64_t emax = 0, smax = 0;

	if (c->state == AGENT_IDLE) {
		snprintf(msg, mn, "no capture to collect (send START first)");
		return -1;
	}
	agent_capture_stop(c);
	for (i = 0; i < c->nplugins; i++) {
		struct agent_plugin *p = &c->plugins[i];

		if (!p->profiler || p->error[0])
			continue;
		if (agent_pjrt_collect(p) < 0) {
			line_add(&c->errors, p->error);
			continue;
		}
		/* The C API's lines join the first plugin host plane. */
		if (target < 0 && p->len && space_scan(p->data, p->len, &sc) == 0 && sc.host_plane >= 0) {
			target = i;
			plane = sc.host_plane;
			emax = sc.max_emeta;
			smax = sc.max_smeta;
		}
	}
	host_enc_init(&c->host, c->start_ns, c->stop_ns, emax, smax);
	c->have_host = 1;
	agent_trace_lock();
	for (i = 0; i < c->nregs; i++)
		if (agent_trace_held(c->regs[i]))
			c->regs[i]->collect(&c->host, host_enc_thread, host_enc_event);
	agent_trace_unlock();
	if (host_enc_finish(&c->host) < 0) {
		snprintf(msg, mn, "out of memory while encoding the C API's events");
		return -1;
	}
	if (c->host.warnings[0])
		line_add(&c->warnings, c->host.warnings);
	space_out_init(&c->out);
	for (i = 0; i < c->nplugins; i++) {
		struct agent_plugin *p = &c->plugins[i];

		if (p->len)
			space_emit(&c->out, p->data, p->len, c->start_ns, i == target ? plane : -1,
				   i == target ? c->host.fields.p : NULL,
				   i == target ? c->host.fields.n : 0);
	}
	if (target < 0 && c->host.fields.n)
		space_emit_plane_ref(&c->out, "/host:CPU", c->host.fields.p, c->host.fields.n);
	space_emit_task_env(&c->out, c->start_ns, c->stop_ns);
	emit_lines(&c->out, 2, &c->errors);
	emit_lines(&c->out, 3, &c->warnings);
	if (c->out.oom || c->errors.oom || c->warnings.oom) {
		snprintf(msg, mn, "out of memory while assembling the profile");
		return -1;
	}
	return 0;
}

void agent_capture_release(struct agent_capture *c)
{
	int i;

	agent_capture_stop(c);
	for (i = 0; i < c->nplugins; i++)
		agent_pjrt_release(&c->plugins[i]);
	if (c->have_host)
		host_enc_fini(&c->host);
	space_out_fini(&c->out);
	abuf_fini(&c->errors);
	abuf_fini(&c->warnings);
	memset(c, 0, sizeof(*c));
}
