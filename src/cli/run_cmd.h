/*
 * run_cmd: `xtop run [options] -- CMD [ARGS...]` — becomes CMD (same PID,
 * terminal, signals and exit status) with the xtop agent preloaded, after
 * saying on stderr which PID to capture. stdout stays the workload's.
 */
#ifndef XT_RUN_CMD_H
#define XT_RUN_CMD_H

int run_main(int argc, char **argv);

#endif
