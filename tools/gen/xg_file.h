/*
 * xg_file.h - output files of xtop-gen, written under a temporary name
 * beside the target and renamed into place, so readers never see a
 * partial file.
 */
#ifndef XTOP_GEN_XG_FILE_H
#define XTOP_GEN_XG_FILE_H

/* Creates a temporary file beside path with the umask's permissions;
 * returns its fd and its name in *tmp (malloc'd). */
int xg_file_open_tmp(const char *path, char **tmp);
/* Renames tmp to path and frees tmp; when the file failed (failed set, err
 * its errno) or the rename fails, removes tmp and exits. */
void xg_file_commit_tmp(char *tmp, const char *path, int failed, int err);

#endif
