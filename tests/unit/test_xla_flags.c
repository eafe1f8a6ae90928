/*
 * test_xla_flags: XLA_FLAGS read as XLA reads them (src/capture/xla_flags.c):
 * whether a value leaves CUDA command buffers on, from a string or a flag
 * file, and the value `xtop run` gives a workload to turn them off.
 */
#include "testutil.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/xla_flags.h"

#define CB "--xla_gpu_enable_command_buffer="
#define OFF CB

static int last_unread;

/* flags, whether they leave command buffers on, and what the user's flags
 * are to `xtop run`: 0 flags it adds its own to, 1 a setting of their own
 * it keeps, 2 a flag file it cannot read (it leaves that to XLA). */
/* xla_flags_cmdbuf_off, checking what it says of an unread file. */
static char *cmdbuf_off(const char *cur, const char *off)
{
	int unread = -1;
	char *v = xla_flags_cmdbuf_off(cur, off, &unread);

	assert_true(unread == 0 || (unread == 1 && !v));
	last_unread = unread;
	return v;
}

static const struct {
	const char *flags;
	int on, user;
} cases[] = {
	{ NULL, 1, 0 },
	{ "", 1, 0 },
	{ "--xla_dump_to=/tmp/d", 1, 0 },
	{ CB, 0, 1 },
	{ CB "''", 0, 1 },
	{ CB "\"\"", 0, 1 },
	{ "  --xla_dump_to=d\t" CB "  ", 0, 1 },
	{ "\n" CB "\r\n", 0, 1 },
	/* one dash is not a flag tsl knows (XLA stops the process) */
	{ "-xla_gpu_enable_command_buffer=", 1, 0 },
	/* a list replaces the set, in any case; INVALID alone runs nothing */
	{ CB "FUSION,CUBLAS", 1, 1 },
	{ CB "fusion", 1, 1 },
	{ CB "INVALID", 0, 1 },
	{ CB "invalid", 0, 1 },
	{ CB "\"FUSION, CUBLAS\"", 1, 1 },
	{ CB "' INVALID '", 0, 1 },
	{ CB "SOME_NEWER_KIND", 1, 1 },
	/* +KIND/-KIND change the set: XLA's default is six kinds */
	{ CB "-FUSION", 1, 1 },
	{ CB "-FUSION,-CUBLAS,-CUBLASLT,-CUSTOM_CALL,-CUDNN", 1, 1 },
	/* emptied only past the first change: older XLA, which applied the
	 * first alone, kept kinds on: read as on */
	{ CB "-FUSION,-CUBLAS,-CUBLASLT,-CUSTOM_CALL,-CUDNN,-DYNAMIC_SLICE_FUSION", 1, 1 },
	{ CB "-fusion,-cublas,-cublaslt,-custom_call,-cudnn,-dynamic_slice_fusion,-WHILE", 1, 1 },
	{ CB "FUSION " CB "-FUSION,-CUBLAS", 0, 1 },
	{ CB "FUSION,CUBLAS " CB "-FUSION,-CUBLAS", 1, 1 },
	{ CB " " CB "+FUSION", 1, 1 },
	{ CB "INVALID " CB "+WHILE", 1, 1 },
	{ CB "FUSION " CB "-FUSION", 0, 1 },
	{ CB " " CB "-SOME_NEWER_KIND", 0, 1 },
	/* values XLA rejects change nothing */
	{ CB "+FUSION,CUBLAS", 1, 1 },
	{ CB " " CB "+FUSION,CUBLAS", 0, 1 },
	{ CB " " CB "+FUSION,", 0, 1 },
	{ CB ",", 1, 1 },
	{ CB " " CB ",", 0, 1 },
	{ CB "' '", 1, 1 },
	{ CB "+", 1, 1 },
	/* the last setting wins */
	{ CB " " CB "FUSION", 1, 1 },
	{ CB "FUSION " CB, 0, 1 },
	/* the legacy level, read as an int32 */
	{ "--xla_gpu_graph_level=0", 0, 1 },
	{ "--xla_gpu_graph_level=1", 1, 1 },
	{ "--xla_gpu_graph_level=00", 0, 1 },
	{ "--xla_gpu_graph_level=+0", 0, 1 },
	{ "--xla_gpu_graph_level=-1", 0, 1 },
	{ "--xla_gpu_graph_level=' 0 '", 0, 1 },
	{ "--xla_gpu_graph_level=-2147483648", 0, 1 },
	{ "--xla_gpu_graph_level=0x0", 1, 1 },
	{ "--xla_gpu_graph_level=", 1, 1 },
	{ CB " --xla_gpu_graph_level=-2147483649", 0, 1 },
	{ CB " --xla_gpu_graph_level=2", 1, 1 },
	{ "--xla_gpu_graph_level=0 " CB "CUDNN", 1, 1 },
	/* XLA stops at the first word that is not a flag, and at "--" */
	{ "--xla_dump_to=d stray " CB, 1, 0 },
	{ "-- " CB, 1, 0 },
	{ "stray", 1, 2 }, /* a flag file that is not there */
	/* other flags that only contain the name, or a value naming it */
	{ "--my_xla_gpu_enable_command_buffer=", 1, 0 },
	{ "---xla_gpu_enable_command_buffer=", 1, 0 },
	{ "--xla_gpu_enable_command_buffers=", 1, 0 },
	{ "--xla_gpu_enable_command_buffer", 1, 0 },
	{ "--xla_dump_to=" CB, 1, 0 },
	{ "--xla_dump_to=\"a " CB "\"", 1, 0 },
	{ "--xla_dump_to=\"a \\\" " CB "\"", 1, 0 },
	{ "--xla_dump_to='a \\' " CB "'", 0, 1 },
};

static void test_strings(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (xla_flags_cmdbuf_on(cases[i].flags, 0) != cases[i].on)
			fail_msg("XLA_FLAGS '%s': want %d", cases[i].flags ? cases[i].flags : "(unset)",
				 cases[i].on);
}

/* The value `xtop run` gives: its flag first, so that whatever the user's
 * flags hold it reads as off, unless they set command buffers themselves. */
static void test_off_value(void **state)
{
	size_t i;
	char *v;

	(void)state;
	v = cmdbuf_off(NULL, OFF);
	assert_string_equal(v, OFF);
	free(v);
	v = cmdbuf_off("--xla_dump_to=d stray", OFF);
	assert_string_equal(v, OFF " --xla_dump_to=d stray");
	free(v);
	assert_null(cmdbuf_off(CB "FUSION", OFF));
	assert_null(cmdbuf_off("--xla_dump_to=d --xla_gpu_graph_level=1", OFF));
	assert_null(cmdbuf_off("no-such-flag-file", OFF));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *f = cases[i].flags;

		v = cmdbuf_off(f, OFF);
		if (last_unread != (cases[i].user == 2))
			fail_msg("XLA_FLAGS '%s' under xtop run: unread %d", f ? f : "(unset)",
				 last_unread);
		if (!v != (cases[i].user != 0))
			fail_msg("XLA_FLAGS '%s' under xtop run: want %s", f ? f : "(unset)",
				 cases[i].user ? "them unchanged" : "its flag added");
		if (v && xla_flags_cmdbuf_on(v, 0))
			fail_msg("XLA_FLAGS '%s' under xtop run: '%s' leaves command buffers on",
				 f ? f : "(unset)", v);
		free(v);
	}
}

static void write_file(const char *path, const char *text, size_t n)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	fclose(f);
}

/* A value that does not start with '-' names a file of flags, found as the
 * workload sees it: its working directory, through /proc. */
static void test_flag_file(void **state)
{
	char dir[] = "/tmp/xtop-xla-flags-XXXXXX", path[PATH_MAX], old[PATH_MAX], *big, *v;
	static const char on[] = "--xla_dump_to=x\n", off[] = "  --xla_dump_to=x\n" CB "''\n";

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_non_null(getcwd(old, sizeof(old)));

	snprintf(path, sizeof(path), "%s/off", dir);
	write_file(path, off, sizeof(off) - 1);
	assert_int_equal(xla_flags_cmdbuf_on(path, 0), 0);
	assert_int_equal(xla_flags_cmdbuf_on(path, getpid()), 0);
	assert_null(cmdbuf_off(path, OFF)); /* the user's own choice */
	assert_int_equal(last_unread, 0);

	snprintf(path, sizeof(path), "%s/on", dir);
	write_file(path, on, sizeof(on) - 1);
	assert_int_equal(xla_flags_cmdbuf_on(path, 0), 1);
	v = cmdbuf_off(path, OFF);
	assert_string_equal(v, OFF " --xla_dump_to=x\n");
	assert_int_equal(xla_flags_cmdbuf_on(v, 0), 0);
	free(v);

	/* relative: the workload's working directory, not xtop's */
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(xla_flags_cmdbuf_on("off", getpid()), 0);
	assert_int_equal(xla_flags_cmdbuf_on("off", 0), 0);
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(xla_flags_cmdbuf_on("off", 0), 1);
	assert_int_equal(chdir(old), 0);

	/* a NUL byte ends a word, and cannot go into the environment */
	snprintf(path, sizeof(path), "%s/nul", dir);
	write_file(path, CB "\0FUSION", sizeof(CB "\0FUSION") - 1);
	assert_int_equal(xla_flags_cmdbuf_on(path, 0), 0);
	assert_null(cmdbuf_off(path, OFF));
	assert_int_equal(last_unread, 1);
	unlink(path);

	/* not a regular file, or too long: XLA's default, at once */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(xla_flags_cmdbuf_on(path, 0), 1);
	assert_null(cmdbuf_off(path, OFF));
	unlink(path);
	/* a directory: XLA opens it and reads nothing */
	assert_int_equal(xla_flags_cmdbuf_on(dir, 0), 1);
	v = cmdbuf_off(dir, OFF);
	assert_string_equal(v, OFF " ");
	free(v);
	snprintf(path, sizeof(path), "%s/big", dir);
	big = malloc(XLA_FLAGS_FILE_MAX + 2);
	assert_non_null(big);
	memset(big, ' ', XLA_FLAGS_FILE_MAX + 1);
	memcpy(big, off, sizeof(off) - 1);
	write_file(path, big, XLA_FLAGS_FILE_MAX + 1);
	assert_int_equal(xla_flags_cmdbuf_on(path, 0), 1);
	write_file(path, big, XLA_FLAGS_FILE_MAX);
	assert_int_equal(xla_flags_cmdbuf_on(path, 0), 0);
	free(big);
	unlink(path);

	snprintf(path, sizeof(path), "%s/off", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/on", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_strings),
		TU_TEST(test_off_value),
		TU_TEST(test_flag_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
