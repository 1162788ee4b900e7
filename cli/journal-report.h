/* journal-report.h: the messages of recovery and of a concurrent change, shared by set-limit, empty and recover. */
#ifndef MEMCGCTL_JOURNAL_REPORT_H
#define MEMCGCTL_JOURNAL_REPORT_H

#include "memcgctl.h"

/* "1887436800 (1.8 GiB)" or "max". */
const char *cli_limit_value(uint64_t v, char *buf, size_t len);
/*
 * Report one recovery outcome on stderr (automatic: as a warning before the
 * command's own work). Returns the exit status it calls for: 0, EXIT_CONFLICT
 * or EXIT_FAILURE (a corrupt journal, a failed restore).
 */
int cli_report_recovery(const struct mcg_recovery *r, bool dry_run, bool automatic);
/* The concurrent-change message: KNOB of PATH held FOUND where memcgctl had written EXPECTED. */
void cli_report_conflict(const char *what, const char *path, const char *knob, uint64_t found,
			 uint64_t expected);
/*
 * The same, where EXPECTED is what memcgctl had written (WRITTEN) or the value
 * it found before it started (!WRITTEN: it had not written KNOB).
 */
void cli_report_conflict_from(const char *what, const char *path, const char *knob,
			      uint64_t found, uint64_t expected, bool written);
/*
 * For a set-limit conflict (RES->fail.conflict): had memcgctl written the value
 * it expected in RES->fail.knob, or was that the value found before the start?
 */
bool cli_limit_conflict_written(const struct mcg_limit_result *res);
/* "cannot use run directory 'DIR': not trusted: ..." for -MCG_E_UNTRUSTED; false otherwise. */
bool cli_report_rundir(struct mcg_ctx *ctx, int err);
/*
 * Another process's write seen during WHAT (fanotify): who, on which knob, when,
 * and what memcgctl left there. True if it printed (W->overwritten: the value
 * they wrote was lost to memcgctl's step, which memcgctl says).
 */
bool cli_report_writer(const char *what, const char *path, const struct mcg_writer_seen *w);
/* The same as one line for a daemon's log, into BUF. */
const char *cli_writer_text(const struct mcg_writer_seen *w, char *buf, size_t len);

#endif
