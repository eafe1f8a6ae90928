// cxx_api: include/xtop/trace.h as a C++ program sees it (the test compiles
// this with -fsyntax-only): the C functions with C linkage, and the scope
// helpers.
#include <xtop/trace.h>

static int work(int n)
{
	xtop::Trace t("cxx#n=3#");
	for (int i = 0; i < n; i++) {
		xtop::Step s(i);
		xtop_trace_instant("tick");
	}
	return xtop_trace_active();
}

// The same declaration with C linkage must agree with the header's.
extern "C" void xtop_trace_begin(const char *name);

int main()
{
	return work(3);
}
