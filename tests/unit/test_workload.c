/*
 * test_workload: what capture reads of a workload (src/capture/workload.c):
 * whether its XLA_FLAGS leave CUDA command buffers on, as XLA reads them
 * (the last setting wins; only an empty list, or the legacy level 0, turns
 * them off), and the live answer an agent gives over the one /proc shows.
 */
#include "testutil.h"

#include <stdlib.h>
#include <unistd.h>

#include "capture/workload.h"

static void test_flags(void **state)
{
	static const struct {
		const char *flags;
		int on;
	} cases[] = {
		{ NULL, 1 },
		{ "", 1 },
		{ "--xla_dump_to=/tmp/d", 1 },
		{ "--xla_gpu_enable_command_buffer=", 0 },
		{ "-xla_gpu_enable_command_buffer=", 0 },
		{ "--xla_gpu_enable_command_buffer=''", 0 },
		{ "--xla_gpu_enable_command_buffer=\"\"", 0 },
		{ "  --xla_dump_to=d\t--xla_gpu_enable_command_buffer=  ", 0 },
		{ "--xla_gpu_enable_command_buffer=FUSION,CUBLAS", 1 },
		{ "--xla_gpu_enable_command_buffer=-FUSION", 1 },
		/* the last setting wins, as in XLA's parser */
		{ "--xla_gpu_enable_command_buffer= --xla_gpu_enable_command_buffer=FUSION", 1 },
		{ "--xla_gpu_enable_command_buffer=FUSION --xla_gpu_enable_command_buffer=", 0 },
		/* the legacy level */
		{ "--xla_gpu_graph_level=0", 0 },
		{ "--xla_gpu_graph_level=1", 1 },
		{ "--xla_gpu_enable_command_buffer= --xla_gpu_graph_level=2", 1 },
		{ "--xla_gpu_graph_level=0 --xla_gpu_enable_command_buffer=CUDNN", 1 },
		/* other flags that only contain the name, or a value naming it */
		{ "--my_xla_gpu_enable_command_buffer=", 1 },
		{ "---xla_gpu_enable_command_buffer=", 1 },
		{ "--xla_gpu_enable_command_buffers=", 1 },
		{ "--xla_gpu_enable_command_buffer", 1 },
		{ "--xla_dump_to=--xla_gpu_enable_command_buffer=", 1 },
		{ "--xla_gpu_graph_level=00", 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (workload_flags_cmdbuf_on(cases[i].flags) != cases[i].on)
			fail_msg("XLA_FLAGS '%s': want %d", cases[i].flags ? cases[i].flags : "(unset)",
				 cases[i].on);
	}
}

/* A process without XLA's CUDA plugin is never warned about, whatever its
 * flags say; this one has none loaded. */
static void test_no_plugin(void **state)
{
	(void)state;
	assert_int_equal(workload_cmdbuf_on(getpid(), 1), 0);
	assert_int_equal(workload_cmdbuf_on(getpid(), -1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_flags),
		TU_TEST(test_no_plugin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
