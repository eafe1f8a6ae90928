/*
 * test_workload: what capture reads of a workload (src/capture/workload.c):
 * the environment it started with, and whether it is one a capture can
 * crash (how its XLA_FLAGS read is test_xla_flags').
 */
#include "testutil.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/workload.h"

/* The environment a process started with, and a value too long to read
 * whole, which must never read as a shorter one. */
static void test_env(void **state)
{
	char *envp[] = { "XLA_FLAGS=--xla_gpu_enable_command_buffer=FUSION", "EMPTY=", NULL };
	char *argv[] = { "sleep", "5", NULL };
	char out[64] = "x";
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		execve("/bin/sleep", argv, envp);
		_exit(127);
	}
	/* until it runs sleep, /proc shows the test's own environment */
	for (int i = 0; i < 200 && workload_env(pid, "EMPTY", out, sizeof(out)) != 1; i++)
		usleep(10 * 1000);
	assert_int_equal(workload_env(pid, "EMPTY", out, sizeof(out)), 1);
	assert_string_equal(out, "");
	assert_int_equal(workload_env(pid, "XLA_FLAGS", out, sizeof(out)), 1);
	assert_string_equal(out, "--xla_gpu_enable_command_buffer=FUSION");
	assert_int_equal(workload_env(pid, "XLA_FLAGS", out, 20), -1);
	assert_string_equal(out, "");
	assert_int_equal(workload_env(pid, "XLA_FLAG", out, sizeof(out)), 0);
	assert_int_equal(workload_env(pid, "HOME", out, sizeof(out)), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
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
		TU_TEST(test_env),
		TU_TEST(test_no_plugin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
