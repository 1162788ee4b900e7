/* top.h: what cmd-top.c, the event loop and the view share. */
#ifndef MEMCGCTL_TOP_H
#define MEMCGCTL_TOP_H

#include "memcgctl.h"
#include "top/model.h"

struct top_opts {
	const char *cgroup; /* subtree to show, NULL: all */
	bool batch;
	long count;          /* -n: samples to print, 0: until interrupted */
	uint64_t interval_ms; /* -d */
	bool taskstats;      /* --taskstats */
	bool no_taskstats;   /* --no-taskstats */
	struct top_model model;
	/* --replay: frames from the history store instead of samples */
	bool replay;
	const char *at, *store;
	struct mcg_hist_reader *hist;
	struct mcg_hist_frame *first; /* the frame to start at (the loop takes it) */
	unsigned bad;                 /* frames the reader could not use */
};

/* The interactive view: returns the exit status. S is NULL for --replay (o->hist, o->first). */
int top_interactive(struct cli *cli, struct top_opts *o, struct mcg_sampler *s);

#endif
