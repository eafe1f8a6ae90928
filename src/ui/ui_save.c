/*
 * ui_save: the viewer's x. A profile is saved once: a capture already is
 * (in the run the capture made), and a profile opened from a file is copied
 * into a new run under the logdir the first time, with hostnames and a Task
 * Environment plane added when it lacks them and its clock allows; later
 * presses say where it already is. The status line always names the
 * absolute directory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/profile_path.h"
#include "../model/xplane_writer.h"
#include "../util/xalloc.h"
#include "app.h"

unsigned app_save(struct app *a)
{
	struct prof *p = &a->profs[a->cur];
	struct xplane_write_opts wo = { NULL, 0, 0, 1 };
	char logdir[4096], run[4096];
	struct xt_error err;
	uint64_t s, e;
	size_t h;
	int dated = 1;

	/* First: a saved run is known before its profile has loaded. */
	if (p->saved) {
		app_status(a, 0, "already saved in %s", p->saved);
		return UI_REDRAW;
	}
	if (!a->t->nhosts) {
		app_status(a, 1, "nothing to save yet");
		return UI_REDRAW;
	}
	if (profile_path_absolute(a->logdir, logdir, sizeof(logdir)) < 0) {
		app_status(a, 1, "not saved: cannot get the current directory: %s", strerror(errno));
		return UI_REDRAW;
	}
	if (xplane_save_run(a->t, logdir, &wo, run, sizeof(run), &err) < 0) {
		app_status(a, 1, "not saved: %s", err.msg);
		return UI_REDRAW;
	}
	p->saved = xstrdup(run);
	{
		/* xtop top's viewer: tell top where its capture went. */
		const char *note = getenv("XTOP_SAVED_TO");
		FILE *f = note && *note ? fopen(note, "wx") : NULL;

		if (f) {
			fputs(run, f);
			fclose(f);
		}
	}
	for (h = 0; h < a->t->nhosts; h++)
		dated &= xplane_host_window(&a->t->hosts[h], &s, &e) != 0;
	app_status(a, 0, "saved in %s%s", run,
		   dated ? "" : " (no Task Environment plane: the profile does not say when it was taken)");
	return UI_REDRAW;
}
