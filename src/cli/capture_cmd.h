/*
 * capture_cmd: `xtop capture TARGET` — headless captures for scripts, CI and
 * training loops (--every / --keep). Exit status 0 only when every target's
 * profile was saved.
 */
#ifndef XT_CAPTURE_CMD_H
#define XT_CAPTURE_CMD_H

int capture_main(int argc, char **argv);

#endif
