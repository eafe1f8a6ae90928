/*
 * dlcycle_lib: a plugin-like library with its own static copy of
 * libxtop-trace inside (as a vendor library may ship it), which dlcycle
 * loads and unloads again and again.
 */
#include <xtop/trace.h>

__attribute__((visibility("default"))) void dlcycle_work(void)
{
	xtop_trace_begin("lib_work#copy=static#");
	xtop_trace_instant("lib_instant");
	xtop_trace_end();
}
