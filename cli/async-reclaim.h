/* async-reclaim.h: what 'async-reclaim enable|disable' does around the library, shared with top's A. */
#ifndef MCG_CLI_ASYNC_RECLAIM_H
#define MCG_CLI_ASYNC_RECLAIM_H

#include "memcgctl.h"

/* cmd-reclaimd.c: the state directory, --state-dir or the context's default (says why not). */
int cli_async_statedir(struct cli *cli, const char *opt, char *buf, size_t len);

/* cmd-async-reclaim.c */
/* Is the configuration kept under /etc/memcgctl (the host's own default state directory)? */
bool cli_async_persistable(const struct cli *cli, const char *statedir);
/* mcg_async_enable_run's start hook: reclaimd as this run starts it (USERDATA: the cli). */
int cli_async_start(const char *statedir, pid_t *ret_pid, void *userdata);
/*
 * An enable's or a disable's outcome in the command's words, into BUF: its line
 * on success, its error (without "memcgctl: ") on failure; the exit status.
 */
int cli_async_enable_msg(const struct mcg_async_enable_req *req,
			 const struct mcg_async_enable_result *res, const char *name,
			 const char *statedir, char *buf, size_t len);
int cli_async_disable_msg(int r, const struct mcg_async_disable_result *res, const char *name,
			  char *buf, size_t len);

#endif
