/*
 * top_cmd: `xtop top TARGET` — a live table of the device ops of running
 * workloads, refreshed from periodic short captures kept in memory (the
 * screen is ui/top.c). With --batch N (or --json) it prints N refreshes as
 * text tables (or one JSON object per line) and exits, for scripts and
 * tests, like top -b. Exit status: 0; 1 when a later capture failed (its
 * refresh says why and top went on); 2 for bad options, a bad target, or
 * targets that refused the first capture.
 */
#ifndef XT_TOP_CMD_H
#define XT_TOP_CMD_H

int top_main(int argc, char **argv);

#endif
