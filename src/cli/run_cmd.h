/*
 * run_cmd: `xtop run [options] -- CMD [ARGS...]` — runs CMD with the xtop
 * agent preloaded, says on stderr which PID to capture, and waits for it,
 * ending as it ends (launch_run). stdout stays the workload's.
 */
#ifndef XT_RUN_CMD_H
#define XT_RUN_CMD_H

int run_main(int argc, char **argv);

#endif
