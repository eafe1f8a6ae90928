/* msglog: see msglog.h. */
#include "msglog.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

void msglog_add(struct msglog *l, int err, const char *text)
{
	struct msglog_entry *e;

	if (!text[0])
		return;
	if (l->n) {
		e = &l->e[(l->first + l->n - 1) % MSGLOG_MAX];
		if (e->err == err && !strcmp(e->text, text)) {
			e->times++;
			e->when = time(NULL);
			return;
		}
	}
	if (l->n == MSGLOG_MAX) {
		free(l->e[l->first].text);
		l->first = (l->first + 1) % MSGLOG_MAX;
		l->n--;
	}
	e = &l->e[(l->first + l->n++) % MSGLOG_MAX];
	e->when = time(NULL);
	e->err = err;
	e->text = xstrdup(text);
	e->times = 1;
}

const struct msglog_entry *msglog_get(const struct msglog *l, size_t i)
{
	return &l->e[(l->first + i) % MSGLOG_MAX];
}

void msglog_fini(struct msglog *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(msglog_get(l, i)->text);
	memset(l, 0, sizeof(*l));
}
