/*
 * config: the user's settings, each from the first place that has it: the
 * command line (the caller applies its options over these), an XTOP_*
 * environment variable, the config file, the default. `xtop --config` prints
 * every setting with its value and where it came from.
 *
 * The file is $XTOP_CONFIG, else $XDG_CONFIG_HOME/xtop/config, else
 * ~/.config/xtop/config: lines `key = value`, `#` comments, blank lines. A
 * missing file is no error; an unknown key or a bad value in it, a bad
 * XTOP_* variable, a value too long to keep whole, or a file that is not a
 * regular file (a FIFO would hang the read), is one line naming where it is.
 *
 * Ownership: struct config holds its strings (fixed buffers); no heap.
 */
#ifndef XT_CONFIG_H
#define XT_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "../util/error.h"

enum config_key {
	CFG_LOGDIR,        /* captures and saves go under it */
	CFG_DURATION,      /* capture length, ms */
	CFG_HOST_TRACER,   /* ProfileOptions levels */
	CFG_DEVICE_TRACER,
	CFG_PYTHON_TRACER,
	CFG_DEADLINE,      /* capture RPC deadline, ms (0: upstream's) */
	CFG_VIEW,          /* the viewer's first view */
	CFG_EVERY,         /* xtop top: seconds between captures */
	CFG_TOP_DURATION,  /* xtop top: each capture's length, ms */
	CFG_COUNT
};

struct config {
	char value[CFG_COUNT][1024];
	char source[CFG_COUNT][1100]; /* "default", "XTOP_DURATION", "FILE:LINE" */
	char path[1024];              /* the config file looked at */
	int file_found;
};

/* Fills c from the defaults, the file and the environment. Returns 0, or -1
 * with err set (one line, naming the file and line or the variable). */
int config_load(struct config *c, struct xt_error *err);
const char *config_str(const struct config *c, enum config_key k);
/* A numeric setting (validated by config_load). */
uint64_t config_num(const struct config *c, enum config_key k);
/* A setting in seconds with decimals (top_every), in milliseconds. */
uint64_t config_ms(const struct config *c, enum config_key k);
/* The views config_str(CFG_VIEW) may name, in enum view_id order. */
extern const char *const config_views[8];
/* The index of view name s in config_views, or -1. */
int config_view_named(const char *s);
/* config_view_named(the view setting). */
int config_view(const struct config *c);
struct capture_opts;
/* Fills o (all of it) from the capture settings. */
void config_capture_opts(const struct config *c, struct capture_opts *o);
/* Sets k to v from source (an option: "--view"), over what was loaded. */
void config_set(struct config *c, enum config_key k, const char *v, const char *source);
/* `xtop --config`: every setting, its value, where it came from, and what
 * it does. */
void config_print(FILE *f, const struct config *c);

#endif
