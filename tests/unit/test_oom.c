/* test_oom.c: the kernel's OOM report from /dev/kmsg (captured on 6.18 v1, 6.1's v2 format), kills without a report, the autopsy and its event. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "memcg.h"


/* Feed FILE (one /dev/kmsg record a line, as read) to P; the kills into K (at most N). */
static size_t feed_file(struct mcg_oom_parser *p, const char *name, struct mcg_oom_kill *k,
			size_t n)
{
	char path[4096], line[16384];
	size_t got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", MCG_TEST_DATA, name);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		int r = mcg_oom_parser_record(p, line, strlen(line));

		assert_true(r == 0 || r == 1);
		if (r == 1) {
			assert_true(got < n);
			assert_int_equal(mcg_oom_parser_take(p, &k[got]), 0);
			got++;
		}
	}
	fclose(f);
	return got;
}

static void test_kmsg_record(void **state)
{
	struct mcg_kmsg m;
	char t[64];
	const char *rec = "6,1234,5678901,-,caller=T1;a\\x0ab\\\\c\\x07\n SUBSYSTEM=x\n";

	(void)state;
	assert_int_equal(mcg_kmsg_parse(rec, strlen(rec), &m, t, sizeof(t)), 0);
	assert_int_equal(m.level, 6);
	assert_int_equal(m.facility, 0);
	assert_int_equal(m.seq, 1234);
	assert_int_equal(m.usec, 5678901);
	assert_int_equal(m.flags, '-');
	assert_string_equal(t, "a\nb\\\\c\a");
	assert_int_equal(m.len, 7);
	/* cut to the buffer */
	assert_int_equal(mcg_kmsg_parse(rec, strlen(rec), &m, t, 3), 0);
	assert_string_equal(t, "a\n");
	/* facility in the priority */
	assert_int_equal(mcg_kmsg_parse("14,1,2,c;x", 10, &m, t, sizeof(t)), 0);
	assert_int_equal(m.level, 6);
	assert_int_equal(m.facility, 1);
	assert_int_equal(m.flags, 'c');
	assert_int_equal(mcg_kmsg_parse("6,1,2;x", 7, &m, t, sizeof(t)), -EINVAL);
	assert_int_equal(mcg_kmsg_parse("6,1,2,-x", 8, &m, t, sizeof(t)), -EINVAL);
	assert_int_equal(mcg_kmsg_parse("a,1,2,-;x", 9, &m, t, sizeof(t)), -EINVAL);
	assert_int_equal(mcg_kmsg_parse("6,1,99999999999999999999999,-;x", 31, &m, t, sizeof(t)),
			 -EINVAL);
}

/* Captured here: a memcg OOM of 'tail' in /memcgctl-h27-cap/child, limit 16M on its parent (v1, 6.18). */
static void test_captured_v1(void **state)
{
	struct mcg_oom_parser *p;
	struct mcg_oom_kill k[2];
	struct mcg_oom_autopsy a;

	(void)state;
	assert_int_equal(mcg_oom_parser_new(&p), 0);
	assert_int_equal(feed_file(p, "oom-v1-6.18.kmsg", k, 2), 1);
	assert_int_equal(k[0].scope, MCG_OOM_SCOPE_MEMCG);
	assert_int_equal(k[0].pid, 29638);
	assert_string_equal(k[0].comm, "tail");
	assert_int_equal(k[0].uid, 0);
	assert_int_equal(k[0].seq, 419);
	assert_int_equal(k[0].usec, 1113169549);
	assert_int_equal(k[0].total_vm_kb, 19076);
	assert_int_equal(k[0].anon_rss_kb, 16128);
	assert_int_equal(k[0].file_rss_kb, 1700);
	assert_int_equal(k[0].shmem_rss_kb, 0);
	assert_int_equal(k[0].pgtables_kb, 80);
	assert_true(k[0].has_adj && k[0].oom_score_adj == 0);
	assert_true(k[0].has_summary && !k[0].summary_cut);
	assert_string_equal(k[0].constraint, "CONSTRAINT_MEMCG");
	assert_false(k[0].global_oom);
	assert_string_equal(k[0].oom_memcg, "/memcgctl-h27-cap");
	assert_string_equal(k[0].task_memcg, "/memcgctl-h27-cap/child");
	assert_true(k[0].has_header);
	assert_string_equal(k[0].invoker, "tail");
	assert_int_equal(k[0].gfp_mask, 0xcc0);
	assert_true(k[0].mem.valid);
	assert_int_equal(k[0].mem.usage_kb, 16384);
	assert_int_equal(k[0].mem.limit_kb, 16384);
	assert_int_equal(k[0].mem.failcnt, 92);
	assert_true(k[0].memsw.valid && k[0].kmem.valid);
	assert_int_equal(k[0].kmem.usage_kb, 112);
	assert_string_equal(k[0].stat_memcg, "/memcgctl-h27-cap");
	assert_non_null(strstr(k[0].stat, "total_rss 16662528\n"));
	assert_int_equal(k[0].ntasks, 1);
	assert_int_equal(k[0].tasks[0].pid, 29638);
	assert_int_equal(k[0].tasks[0].rss, 4457);
	assert_int_equal(k[0].tasks[0].total_vm, 4769);
	assert_string_equal(k[0].tasks[0].name, "tail");

	mcg_oom_autopsy_build(&k[0], 1, NULL, 0, 1000000000ULL, &a);
	assert_int_equal(a.time_ns, 1000000000ULL + 1113169549000ULL);
	assert_int_equal(a.breakdown, MCG_OOM_BD_KERNEL);
	assert_string_equal(a.oom_cgroup, "/memcgctl-h27-cap");
	assert_string_equal(a.victim_cgroup, "/memcgctl-h27-cap/child");
	assert_int_equal(a.rec.v[MCG_K_ANON], 16662528);
	assert_true(mcg_record_has(&a.rec, MCG_K_FILE));
	assert_int_equal(a.limit, 16ULL << 20);
	assert_string_equal(a.limit_name, "memory.limit_in_bytes");
	assert_int_equal(a.usage, 16ULL << 20);
	assert_int_equal(a.swap_limit, MCG_MAX);
	assert_string_equal(a.why, "anon 15.9 MiB + kernel 112 KiB reached memory.limit_in_bytes "
				   "16 MiB; no swap used; page cache was already 0 B: nothing left "
				   "to reclaim");
	mcg_oom_parser_free(p);
}

/* Captured in the v2 guest (6.1): the stat dump is one record with embedded newlines. */
static void test_captured_v2(void **state)
{
	struct mcg_oom_parser *p;
	struct mcg_oom_kill k[2];
	struct mcg_oom_autopsy a;

	(void)state;
	assert_int_equal(mcg_oom_parser_new(&p), 0);
	assert_int_equal(feed_file(p, "oom-v2-6.1-guest.kmsg", k, 2), 1);
	assert_int_equal(k[0].pid, 147);
	assert_string_equal(k[0].comm, "mcg-load");
	assert_string_equal(k[0].oom_memcg, "/memcgctl-test-1-1-cap");
	assert_string_equal(k[0].task_memcg, "/memcgctl-test-1-1-cap/child");
	assert_int_equal(k[0].shmem_rss_kb, 1056);
	assert_true(k[0].swap.valid && k[0].swap.limit_kb == 0);
	assert_non_null(strstr(k[0].stat, "anon 16674816\n"));
	assert_non_null(strstr(k[0].stat, "thp_collapse_alloc 0\n"));
	assert_int_equal(k[0].ntasks, 1);
	assert_int_equal(k[0].tasks[0].rss, 4302);
	mcg_oom_autopsy_build(&k[0], 2, NULL, 0, 0, &a);
	assert_int_equal(a.breakdown, MCG_OOM_BD_KERNEL);
	assert_int_equal(a.rec.v[MCG_K_ANON], 16674816);
	assert_int_equal(a.rec.v[MCG_K_KERNEL], 102400);
	assert_int_equal(a.limit, 16ULL << 20);
	assert_string_equal(a.why, "anon 15.9 MiB + kernel 100 KiB reached memory.max 16 MiB; no "
				   "swap allowed; page cache was already 0 B: nothing left to "
				   "reclaim");
	mcg_oom_parser_free(p);
}

/* A record cut at the kernel's 1 KiB: its last, cut line is not taken for a number. */
static void test_cut_record(void **state)
{
	struct mcg_oom_parser *p;
	char rec[4096];
	size_t o;

	(void)state;
	assert_int_equal(mcg_oom_parser_new(&p), 0);
	o = (size_t)snprintf(rec, sizeof(rec), "4,1,1,-;x invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0");
	assert_int_equal(mcg_oom_parser_record(p, rec, o), 0);
	o = (size_t)snprintf(rec, sizeof(rec), "6,2,2,-;Memory cgroup stats for /a:");
	assert_int_equal(mcg_oom_parser_record(p, rec, o), 0);
	o = (size_t)snprintf(rec, sizeof(rec), "6,3,3,-;anon 1");
	/* about 1000 bytes once unescaped */
	while (o < 1700)
		o += (size_t)snprintf(rec + o, sizeof(rec) - o, "\\x0akey%zu 5", o);
	o += (size_t)snprintf(rec + o, sizeof(rec) - o, "\\x0afile 12");
	assert_int_equal(mcg_oom_parser_record(p, rec, o), 0);
	o = (size_t)snprintf(rec, sizeof(rec), "3,4,4,-;Memory cgroup out of memory: Killed process 3 (x) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB");
	assert_int_equal(mcg_oom_parser_record(p, rec, o), 1);
	{
		static struct mcg_oom_kill k;

		assert_int_equal(mcg_oom_parser_take(p, &k), 0);
		assert_non_null(strstr(k.stat, "anon 1\n"));
		assert_null(strstr(k.stat, "file 12"));
	}
	mcg_oom_parser_free(p);
}

/* 6.1's v2 format: the stat dump is one record with embedded newlines; hostile names with commas. */
static void test_v2_format(void **state)
{
	struct mcg_oom_parser *p;
	struct mcg_oom_kill k[2];
	struct mcg_oom_autopsy a;

	(void)state;
	assert_int_equal(mcg_oom_parser_new(&p), 0);
	assert_int_equal(feed_file(p, "oom-v2-6.1.kmsg", k, 2), 1);
	assert_int_equal(k[0].pid, 321);
	assert_int_equal(k[0].uid, 1000);
	assert_string_equal(k[0].oom_memcg, "/job,a");
	assert_string_equal(k[0].task_memcg, "/job,a/w,task_memcg=/x");
	assert_string_equal(k[0].stat_memcg, "/job,a");
	assert_true(k[0].swap.valid && k[0].swap.limit_kb == 0);
	assert_int_equal(k[0].ntasks, 2);
	assert_int_equal(k[0].tasks[0].pid, 321); /* largest first */
	assert_int_equal(k[0].tasks[0].uid, 1000);
	assert_string_equal(k[0].tasks[1].name, "sh");
	mcg_oom_autopsy_build(&k[0], 2, NULL, 0, 0, &a);
	assert_int_equal(a.breakdown, MCG_OOM_BD_KERNEL);
	assert_int_equal(a.rec.v[MCG_K_ANON], 32997376);
	assert_int_equal(a.rec.v[MCG_K_KERNEL], 278528);
	assert_int_equal(a.swap_limit, 0);
	assert_string_equal(a.limit_name, "memory.max");
	assert_non_null(strstr(a.why, "reached memory.max 32 MiB; no swap allowed; page cache was "
				      "already 260 KiB: nothing left to reclaim"));
	mcg_oom_parser_free(p);
}

static int line(struct mcg_oom_parser *p, uint64_t seq, uint64_t usec, const char *s)
{
	return mcg_oom_parser_line(p, seq, usec, s, strlen(s));
}

/* A kill the kernel printed no report for (rate limited): the Killed line alone. */
static void test_no_report(void **state)
{
	struct mcg_oom_parser *p;
	struct mcg_oom_kill k;

	(void)state;
	assert_int_equal(mcg_oom_parser_new(&p), 0);
	assert_int_equal(mcg_oom_parser_take(p, &k), -ENOENT);
	/* an old report that ended without a kill must not be taken for this one */
	assert_int_equal(line(p, 1, 1000, "x invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0"), 0);
	assert_int_equal(line(p, 2, 1001, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/a,task_memcg=/a,task=x,pid=7,uid=0"), 0);
	assert_int_equal(line(p, 3, 1002, "Memory cgroup out of memory: Killed process 8 (y) total-vm:1kB, anon-rss:2kB, file-rss:3kB, shmem-rss:4kB, UID:5 pgtables:6kB oom_score_adj:-7"), 1);
	assert_int_equal(mcg_oom_parser_take(p, &k), 0);
	assert_int_equal(k.pid, 8);
	assert_false(k.has_summary);
	assert_string_equal(k.oom_memcg, "");
	assert_int_equal(k.oom_score_adj, -7);
	assert_int_equal(k.uid, 5);
	assert_int_equal(mcg_oom_parser_take(p, &k), -ENOENT);
	/* a report 40 s before its kill is another OOM's */
	assert_int_equal(line(p, 4, 2000, "x invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0"), 0);
	assert_int_equal(line(p, 5, 40002000, "Memory cgroup out of memory: Killed process 9 (z) total-vm:1kB, anon-rss:2kB, file-rss:3kB, shmem-rss:4kB, UID:5 pgtables:6kB oom_score_adj:0"), 1);
	assert_int_equal(mcg_oom_parser_take(p, &k), 0);
	assert_false(k.has_header);
	mcg_oom_parser_free(p);
}

/* memory.oom.group: one report, several kills. */
static void test_group(void **state)
{
	struct mcg_oom_parser *p;
	struct mcg_oom_kill k;

	(void)state;
	assert_int_equal(mcg_oom_parser_new(&p), 0);
	line(p, 1, 10, "a invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0");
	line(p, 2, 11, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/g,task_memcg=/g/1,task=a,pid=10,uid=0");
	assert_int_equal(line(p, 3, 12, "Memory cgroup out of memory: Killed process 10 (a) total-vm:1kB, anon-rss:2kB, file-rss:3kB, shmem-rss:4kB, UID:0 pgtables:6kB oom_score_adj:0"), 1);
	assert_int_equal(mcg_oom_parser_take(p, &k), 0);
	assert_int_equal(k.group_member, 0);
	assert_string_equal(k.task_memcg, "/g/1");
	line(p, 4, 13, "Tasks in /g are going to be killed due to memory.oom.group set");
	assert_int_equal(line(p, 5, 14, "Memory cgroup out of memory: Killed process 11 (b) total-vm:1kB, anon-rss:2kB, file-rss:3kB, shmem-rss:4kB, UID:0 pgtables:6kB oom_score_adj:0"), 1);
	assert_int_equal(mcg_oom_parser_take(p, &k), 0);
	assert_int_equal(k.group_member, 1);
	assert_int_equal(k.pid, 11);
	assert_string_equal(k.oom_memcg, "/g");
	assert_string_equal(k.task_memcg, ""); /* the watcher finds it */
	assert_false(k.has_summary);
	mcg_oom_parser_free(p);
}

static void test_lines(void **state)
{
	struct mcg_oom_kill k;
	const char *l;

	(void)state;
	/* a comm that holds ") total-vm:" itself */
	l = "Memory cgroup out of memory: Killed process 5 (a) total-vm:x) total-vm:10kB, anon-rss:20kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:1kB oom_score_adj:0";
	assert_int_equal(mcg_oom_parse_killed(l, strlen(l), &k), 0);
	assert_string_equal(k.comm, "a) total-vm:x");
	assert_int_equal(k.total_vm_kb, 10);
	/* the global OOM, and an old kernel without UID/pgtables */
	l = "Out of memory: Killed process 77 (big) total-vm:100kB, anon-rss:50kB, file-rss:1kB, shmem-rss:0kB";
	assert_int_equal(mcg_oom_parse_killed(l, strlen(l), &k), 0);
	assert_int_equal(k.scope, MCG_OOM_SCOPE_GLOBAL);
	assert_int_equal(k.uid, -1);
	assert_false(k.has_pgtables || k.has_adj);
	l = "Out of memory (oom_kill_allocating_task): Killed process 78 (big) total-vm:1kB, anon-rss:1kB, file-rss:1kB, shmem-rss:0kB, UID:0 pgtables:1kB oom_score_adj:0";
	assert_int_equal(mcg_oom_parse_killed(l, strlen(l), &k), 0);
	assert_true(k.scope == MCG_OOM_SCOPE_GLOBAL && k.allocating);
	l = "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/user.slice/x.service,task=big,pid=77,uid=1000";
	memset(&k, 0, sizeof(k));
	assert_int_equal(mcg_oom_parse_summary(l, strlen(l), &k), 0);
	assert_true(k.global_oom);
	assert_string_equal(k.oom_memcg, "/");
	assert_string_equal(k.task_memcg, "/user.slice/x.service");
	assert_int_equal(k.pid, 77);
	assert_int_equal(k.uid, 1000);
	/* truncated: no task=, pid=, uid= */
	l = "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/a,task_memcg=/a/b";
	memset(&k, 0, sizeof(k));
	assert_int_equal(mcg_oom_parse_summary(l, strlen(l), &k), 0);
	assert_true(k.summary_cut);
	assert_string_equal(k.oom_memcg, "/a");
	assert_string_equal(k.task_memcg, "/a/b");
	/* cut in the middle of the victim's path: what there is */
	l = "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/a,task_memcg=/a/b,task=x,pid=1";
	memset(&k, 0, sizeof(k));
	assert_int_equal(mcg_oom_parse_summary(l, strlen(l), &k), 0);
	assert_true(k.summary_cut);
	assert_string_equal(k.oom_memcg, "/a");
	/* not these kinds */
	assert_int_equal(mcg_oom_parse_killed("Killed process 5 (a)", 20, &k), -EINVAL);
	assert_int_equal(mcg_oom_parse_killed("x: Killed process x (a) total-vm:1kB", 36, &k), -EINVAL);
	assert_int_equal(mcg_oom_parse_summary("oom-kil", 7, &k), -EINVAL);
}

/* A comm with a newline (the kernel escapes it as \x0a) does not hide the kill. */
static void test_hostile_comm(void **state)
{
	struct mcg_oom_parser *p;
	static struct mcg_oom_kill k;
	const char *r1 = "6,1,1,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/a,task_memcg=/a,task=x\\x0a,pid=1),pid=9,uid=0";
	const char *r2 = "3,2,2,-;Memory cgroup out of memory: Killed process 9 (x\\x0a,pid=1)) total-vm:1kB, anon-rss:2kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:1kB oom_score_adj:0";

	(void)state;
	assert_int_equal(mcg_oom_parser_new(&p), 0);
	mcg_oom_parser_line(p, 0, 0, "x invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0", 74);
	assert_int_equal(mcg_oom_parser_record(p, r1, strlen(r1)), 0);
	assert_int_equal(mcg_oom_parser_record(p, r2, strlen(r2)), 1);
	assert_int_equal(mcg_oom_parser_take(p, &k), 0);
	assert_int_equal(k.pid, 9);
	assert_string_equal(k.comm, "x\n,pid=1)");
	assert_true(k.has_summary);
	assert_string_equal(k.task_memcg, "/a");
	mcg_oom_parser_free(p);
}

/* Pre-4.9 kernels: a line in pieces ('c' then '+' records). */
static void test_continued(void **state)
{
	struct mcg_oom_parser *p;
	struct mcg_oom_kill k;
	const char *r1 = "6,10,100,c;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/";
	const char *r2 = "6,11,101,+;,mems_allowed=0,oom_memcg=/a,task_memcg=/a,task=t,pid=3,uid=0";
	const char *r3 = "3,12,102,-;Memory cgroup out of memory: Killed process 3 (t) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB";
	const char *r0 = "4,9,99,-;t invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0";

	(void)state;
	assert_int_equal(mcg_oom_parser_new(&p), 0);
	assert_int_equal(mcg_oom_parser_record(p, r0, strlen(r0)), 0);
	assert_int_equal(mcg_oom_parser_record(p, r1, strlen(r1)), 0);
	assert_int_equal(mcg_oom_parser_record(p, r2, strlen(r2)), 0);
	assert_int_equal(mcg_oom_parser_record(p, r3, strlen(r3)), 1);
	assert_int_equal(mcg_oom_parser_take(p, &k), 0);
	assert_true(k.has_summary);
	assert_string_equal(k.oom_memcg, "/a");
	assert_int_equal(mcg_oom_parser_record(p, "x", 1), -EINVAL);
	mcg_oom_parser_free(p);
}

/* The autopsy survives the store: to an event and back. */
static void test_event_roundtrip(void **state)
{
	struct mcg_oom_parser *p;
	struct mcg_oom_kill k[2];
	struct mcg_oom_autopsy a, b;
	struct mcg_hist_event ev;
	static char buf[16384];
	unsigned key;

	(void)state;
	assert_int_equal(mcg_oom_parser_new(&p), 0);
	assert_int_equal(feed_file(p, "oom-v2-6.1.kmsg", k, 2), 1);
	mcg_oom_autopsy_build(&k[0], 2, NULL, 0, 5, &a);
	assert_int_equal(mcg_oom_autopsy_to_event(&a, &ev, buf, sizeof(buf)), 0);
	assert_int_equal(ev.type, MCG_HEV_OOM_AUTOPSY);
	assert_string_equal(ev.cgroup, "/job,a/w,task_memcg=/x");
	assert_string_equal(ev.comm, "stress");
	assert_string_equal(ev.op, "memcg");
	assert_int_equal(ev.pid, 321);
	assert_int_equal(ev.count, (32292ULL + 228) * 1024);
	assert_null(strchr(ev.detail, '\n'));
	assert_int_equal(mcg_oom_autopsy_from_event(&ev, &b), 0);
	assert_string_equal(b.oom_cgroup, a.oom_cgroup);
	assert_string_equal(b.victim_cgroup, a.victim_cgroup);
	assert_string_equal(b.why, a.why);
	assert_string_equal(b.comm, a.comm);
	assert_string_equal(b.limit_name, a.limit_name);
	assert_int_equal(b.limit, a.limit);
	assert_int_equal(b.swap_limit, a.swap_limit);
	assert_int_equal(b.usage, a.usage);
	assert_int_equal(b.anon_rss, a.anon_rss);
	assert_int_equal(b.breakdown, a.breakdown);
	assert_int_equal(b.kmsg_seq, 912);
	assert_int_equal(b.nprocs, 2);
	assert_int_equal(b.procs[0].pid, 321);
	assert_int_equal(b.procs[0].uid, 1000);
	assert_int_equal(b.procs[0].rss, 8130ULL * (uint64_t)mcg_page_size());
	assert_string_equal(b.procs[0].name, "stress");
	assert_string_equal(b.procs[1].name, "sh");
	assert_memory_equal(&b.rec.valid, &a.rec.valid, sizeof(a.rec.valid));
	mcg_keyset_foreach(key, &a.rec.valid)
		assert_int_equal(b.rec.v[key], a.rec.v[key]);
	/* too small a buffer, and what the writer does not write */
	assert_int_equal(mcg_oom_autopsy_to_event(&a, &ev, buf, 64), -ENOSPC);
	ev.detail = "v2 seq=1";
	assert_int_equal(mcg_oom_autopsy_from_event(&ev, &b), -MCG_E_CORRUPT);
	ev.detail = "v1 seq=x";
	assert_int_equal(mcg_oom_autopsy_from_event(&ev, &b), -MCG_E_CORRUPT);
	ev.detail = "v1 oom=%zz";
	assert_int_equal(mcg_oom_autopsy_from_event(&ev, &b), -MCG_E_CORRUPT);
	ev.detail = "v1 future_key=whatever r.no_such_counter=5";
	assert_int_equal(mcg_oom_autopsy_from_event(&ev, &b), 0);
	/* the largest value, as 'max' is stored (found by the fuzzer) */
	ev.detail = "v1 r.limit=18446744073709551615";
	assert_int_equal(mcg_oom_autopsy_from_event(&ev, &b), 0);
	assert_int_equal(b.rec.v[MCG_K_LIMIT], UINT64_MAX);
	ev.detail = "v1 r.limit=18446744073709551616";
	assert_int_equal(mcg_oom_autopsy_from_event(&ev, &b), -MCG_E_CORRUPT);
	mcg_oom_parser_free(p);
}

/*
 * Every field of both events, each a distinct value, through the encoder and
 * back: the detail text is the one the encoders wrote before they became
 * table-driven (captured from main at 6f1be3c), the decoded struct the one encoded.
 */
static const char autopsy_detail[] =
	"v1 seq=11 bd=sample age_us=20 oom=/oom%20cg/a=b victim=/oom%20cg/a=b/victim "
	"unit=web%25x.service anon_rss=12 file_rss=13 shmem_rss=14 total_vm=15 pgtables=16 adj=-17 "
	"limit_name=memory.memsw.limit_in_bytes limit=21 swap_limit=22 usage=23 growth_bps=-24 "
	"growth_us=25 r.usage=18 r.limit=18446744073709551615 r.file=19 p=4242,1001,26,stress "
	"p=27,-1,28,a%20b,c p=29,0,30,- why=why:%20it%20hit%2021%20bytes,%20100%25";
static const char warning_detail[] =
	"v1 usage=31 limit=32 reclaimable=33 interval_us=35 psi_full_us=36 "
	"limit_name=memory.swap.max unit=w.scope why=near:%2031%20of%2032";

static const struct mcg_oom_autopsy every_autopsy = {
	.time_ns = 1700000000123456789ULL,
	.kmsg_seq = 11,
	.scope = MCG_OOM_SCOPE_MEMCG,
	.oom_cgroup = "/oom cg/a=b",
	.victim_cgroup = "/oom cg/a=b/victim",
	.unit = "web%x.service",
	.pid = 4242,
	.uid = 1001,
	.comm = "stress",
	.anon_rss = 12,
	.file_rss = 13,
	.shmem_rss = 14,
	.total_vm = 15,
	.pgtables = 16,
	.oom_score_adj = -17,
	.breakdown = MCG_OOM_BD_SAMPLE,
	.age_us = 20,
	.limit = 21,
	.swap_limit = 22,
	.limit_name = "memory.memsw.limit_in_bytes",
	.usage = 23,
	.why = "why: it hit 21 bytes, 100%",
	.has_growth = true,
	.growth_bps = -24,
	.growth_us = 25,
	.procs = {{4242, 1001, 26, "stress"}, {27, -1, 28, "a b,c"}, {29, 0, 30, ""}},
	.nprocs = 3,
};
static const struct mcg_oom_warning every_warning = {
	.time_ns = 1700000000987654321ULL, .cgroup = "/warn cg", .unit = "w.scope",
	.usage = 31, .limit = 32, .limit_name = "memory.swap.max", .reclaimable = 33,
	.signal = "under_oom", .events = 34, .interval_us = 35,
	.has_psi_full = true, .psi_full_us = 36,
	.why = "near: 31 of 32",
};

/*
 * The decoded struct is the encoded one byte for byte (both start zeroed, the
 * static names compared as text first).
 */
static void assert_autopsy_same(struct mcg_oom_autopsy *b, const struct mcg_oom_autopsy *a)
{
	assert_string_equal(b->limit_name ? b->limit_name : "(null)",
			    a->limit_name ? a->limit_name : "(null)");
	b->limit_name = a->limit_name;
	assert_memory_equal(b, a, sizeof(*a));
}

static void test_event_every_field(void **state)
{
	static struct mcg_oom_autopsy a, b;
	static struct mcg_oom_warning w, x;
	struct mcg_hist_event ev;
	static char buf[16384];
	size_t i, n;

	(void)state;
	memcpy(&a, &every_autopsy, sizeof(a));
	mcg_record_set(&a.rec, MCG_K_USAGE, 18);
	mcg_record_set(&a.rec, MCG_K_LIMIT, UINT64_MAX);
	mcg_record_set(&a.rec, MCG_K_FILE, 19);
	assert_int_equal(mcg_oom_autopsy_to_event(&a, &ev, buf, sizeof(buf)), 0);
	assert_string_equal(ev.detail, autopsy_detail);
	assert_int_equal(mcg_oom_autopsy_from_event(&ev, &b), 0);
	assert_autopsy_same(&b, &a);
	/* what is left out: no limits, no growth, no strings */
	a.limit = a.swap_limit = MCG_MAX;
	a.has_growth = false;
	a.growth_bps = 0;
	a.growth_us = 0;
	memset(a.oom_cgroup, 0, sizeof(a.oom_cgroup));
	memset(a.unit, 0, sizeof(a.unit));
	memset(a.why, 0, sizeof(a.why));
	a.limit_name = NULL;
	assert_int_equal(mcg_oom_autopsy_to_event(&a, &ev, buf, sizeof(buf)), 0);
	assert_null(strstr(ev.detail, " limit="));
	assert_null(strstr(ev.detail, " swap_limit="));
	assert_null(strstr(ev.detail, "growth"));
	assert_non_null(strstr(ev.detail, " oom=- "));
	assert_int_equal(mcg_oom_autopsy_from_event(&ev, &b), 0);
	assert_autopsy_same(&b, &a);
	/* every buffer too small is refused, at every length */
	n = strlen(ev.detail);
	for (i = 0; i <= n; i += 7)
		assert_int_equal(mcg_oom_autopsy_to_event(&a, &ev, buf, i), -ENOSPC);

	memcpy(&w, &every_warning, sizeof(w));
	assert_int_equal(mcg_oom_warning_to_event(&w, &ev, buf, sizeof(buf)), 0);
	assert_string_equal(ev.detail, warning_detail);
	for (i = 0; i < 2; i++) {
		assert_int_equal(mcg_oom_warning_from_event(&ev, &x), 0);
		assert_string_equal(x.limit_name, w.limit_name);
		assert_string_equal(x.signal, w.signal);
		x.limit_name = w.limit_name;
		x.signal = w.signal;
		assert_memory_equal(&x, &w, sizeof(w));
		/* then without psi */
		w.has_psi_full = false;
		w.psi_full_us = 0;
		assert_int_equal(mcg_oom_warning_to_event(&w, &ev, buf, sizeof(buf)), 0);
		assert_null(strstr(ev.detail, "psi_full_us"));
	}
	n = strlen(ev.detail);
	for (i = 0; i <= n; i += 5)
		assert_int_equal(mcg_oom_warning_to_event(&w, &ev, buf, i), -ENOSPC);
}

/* What the decoders accept and refuse, beyond what the encoders write. */
static void test_event_decode_edges(void **state)
{
	struct mcg_hist_event ev = {.type = MCG_HEV_OOM_AUTOPSY, .cgroup = "/"};
	struct mcg_oom_autopsy b;
	struct mcg_oom_warning x;
	static const char *const bad[] = {
		"", "v1x", "seq=1", "v1 =1", "v1 seq", "v1 seq=", "v1 seq=-1", "v1 adj=1001",
		"v1 adj=-1001", "v1 adj=", "v1 growth_bps=9223372036854775808", "v1 growth_bps=-",
		"v1 p=1,2,3", "v1 p=2147483648,0,1,x", "v1 p=1,4294967296,1,x", "v1 p=1,-2,1,x",
		"v1 p=1,0,x,y", "v1 p=1,0,1,%zz", "v1 bd=%zz", "v1 limit_name=%zz", 
		"v1 r.usage=x", "v1 why=%zz", "v1 unit=%zz", "v1 victim=%zz",
	};
	static const char *const wbad[] = {"", "v1 usage=x", "v1 psi_full_us=", "v1 why=%zz",
					   "v1 =", "v2", "v1 limit_name=%zz"};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ev.detail = bad[i];
		if (mcg_oom_autopsy_from_event(&ev, &b) != -MCG_E_CORRUPT)
			fail_msg("accepted '%s'", bad[i]);
	}
	/* later keys win; an unknown limit name keeps the one before; an unknown bd is none */
	ev.detail = "v1 seq=1 seq=2 limit_name=memory.max limit_name=memory.nope bd=kernel bd=x "
		    "adj=-1000 growth_bps=-9223372036854775807 r. =3 x=%zz r=1 p=1,-1,5,- v1";
	assert_int_equal(mcg_oom_autopsy_from_event(&ev, &b), -MCG_E_CORRUPT);
	ev.detail = "v1 seq=1 seq=2 limit_name=memory.max limit_name=memory.nope bd=kernel bd=x "
		    "adj=-1000 growth_bps=-9223372036854775807 x=%zz r=1 p=1,-1,5,- future= r.=1";
	assert_int_equal(mcg_oom_autopsy_from_event(&ev, &b), 0);
	assert_int_equal(b.kmsg_seq, 2);
	assert_string_equal(b.limit_name, "memory.max");
	assert_int_equal(b.breakdown, MCG_OOM_BD_NONE);
	assert_int_equal(b.oom_score_adj, -1000);
	assert_int_equal(b.growth_bps, -INT64_MAX);
	assert_true(b.has_growth);
	assert_int_equal(b.nprocs, 1);
	assert_int_equal(b.procs[0].uid, -1);
	assert_string_equal(b.procs[0].name, "");
	assert_int_equal(b.limit, MCG_MAX);

	ev.type = MCG_HEV_OOM_WARNING;
	ev.detail = "v1 usage=1 usage=7 psi_full_us=0 limit_name=memory.max limit_name=x future=1";
	assert_int_equal(mcg_oom_warning_from_event(&ev, &x), 0);
	assert_int_equal(x.usage, 7);
	assert_true(x.has_psi_full);
	assert_string_equal(x.limit_name, "memory.max");
	for (i = 0; i < sizeof(wbad) / sizeof(wbad[0]); i++) {
		ev.detail = wbad[i];
		if (mcg_oom_warning_from_event(&ev, &x) != -MCG_E_CORRUPT)
			fail_msg("accepted '%s'", wbad[i]);
	}
}

/* The sentence from a sample (no kernel dump): the record's age is said. */
static void test_explain_sample(void **state)
{
	struct mcg_oom_kill k = {0};
	struct mcg_record r = {0};
	struct mcg_oom_autopsy a;

	(void)state;
	k.scope = MCG_OOM_SCOPE_MEMCG;
	k.pid = 4;
	snprintf(k.comm, sizeof(k.comm), "job");
	snprintf(k.oom_memcg, sizeof(k.oom_memcg), "/web");
	snprintf(k.task_memcg, sizeof(k.task_memcg), "/system.slice/web.service");
	mcg_record_set(&r, MCG_K_USAGE, 500ULL << 20);
	mcg_record_set(&r, MCG_K_LIMIT, 500ULL << 20);
	mcg_record_set(&r, MCG_K_ANON, 480ULL << 20);
	mcg_record_set(&r, MCG_K_KERNEL, 17ULL << 20);
	mcg_record_set(&r, MCG_K_FILE, 3ULL << 20);
	mcg_record_set(&r, MCG_K_SWAP_LIMIT, 0);
	mcg_oom_autopsy_build(&k, 2, &r, 2500, 0, &a);
	assert_int_equal(a.breakdown, MCG_OOM_BD_SAMPLE);
	assert_int_equal(a.age_us, 2500);
	assert_string_equal(a.unit, "web.service");
	assert_string_equal(a.why, "anon 480 MiB + kernel 17 MiB reached memory.max 500 MiB; no "
				   "swap allowed; page cache was already 3 MiB: nothing left to "
				   "reclaim (read 2 ms before the kill)");
	/* nothing known */
	mcg_oom_autopsy_build(&k, 2, NULL, 0, 0, &a);
	assert_int_equal(a.breakdown, MCG_OOM_BD_NONE);
	assert_non_null(strstr(a.why, "no breakdown"));
}

/* POINTS FILE: "ns usage" lines (CLOCK_MONOTONIC, bytes) into P (at most N). */
static size_t read_points(const char *name, struct mcg_oom_point *p, size_t n)
{
	char path[4096];
	unsigned long long ns, u;
	size_t got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", MCG_TEST_DATA, name);
	f = fopen(path, "r");
	assert_non_null(f);
	while (got < n && fscanf(f, "%llu %llu", &ns, &u) == 2) {
		p[got].ns = ns;
		p[got].usage = u;
		got++;
	}
	fclose(f);
	return got;
}

/*
 * Captured here (v1, 6.18): a process growing 1 MiB every 100 ms in
 * /memcgctl-hoom-cap (32 MiB limit), its usage read every 500 ms until the
 * kernel killed it: the growth runs from the first read (usage 0, at
 * 2539557355434 ns) to the kernel's usage at the kill (32768 kB at
 * 2543283985 us): 33554432 B in 3726629566 ns.
 */
static void test_growth_captured(void **state)
{
	struct mcg_oom_parser *p;
	struct mcg_oom_kill k[2];
	struct mcg_oom_point pt[16], late[2];
	struct mcg_oom_autopsy a, b;
	struct mcg_hist_event ev;
	char buf[16384];
	size_t n;

	(void)state;
	assert_int_equal(mcg_oom_parser_new(&p), 0);
	assert_int_equal(feed_file(p, "oom-v1-growth.kmsg", k, 2), 1);
	mcg_oom_parser_free(p);
	assert_int_equal(k[0].usec, 2543283985ULL);
	assert_int_equal(k[0].mem.usage_kb, 32768);
	n = read_points("oom-v1-growth.points", pt, 16);
	assert_int_equal(n, 8);
	mcg_oom_autopsy_build(&k[0], 1, NULL, 0, 0, &a);
	assert_int_equal(a.breakdown, MCG_OOM_BD_KERNEL);
	assert_false(a.has_growth);
	assert_null(strstr(a.why, "usage grew"));
	mcg_oom_autopsy_growth(&a, 1, pt, n, k[0].usec * 1000);
	assert_true(a.has_growth);
	assert_int_equal(a.growth_us, 3726629);
	assert_int_equal(a.growth_bps, 33554432ULL * 1000000000ULL / 3726629566ULL);
	assert_non_null(strstr(a.why, "; usage grew 8.6 MiB/s over the last 3.7 s"));
	/* kept in the event and read back */
	assert_int_equal(mcg_oom_autopsy_to_event(&a, &ev, buf, sizeof(buf)), 0);
	assert_int_equal(mcg_oom_autopsy_from_event(&ev, &b), 0);
	assert_true(b.has_growth);
	assert_int_equal(b.growth_bps, a.growth_bps);
	assert_int_equal(b.growth_us, a.growth_us);
	assert_string_equal(b.why, a.why);

	/* no kernel counters: the end is the latest read up to the kill, not one after it */
	a.breakdown = MCG_OOM_BD_SAMPLE;
	mcg_record_unset(&a.rec, MCG_K_USAGE);
	late[0] = pt[7];
	late[1] = (struct mcg_oom_point){k[0].usec * 1000 + 5000000, 1 << 20};
	memcpy(&pt[n], late, sizeof(late));
	mcg_oom_autopsy_growth(&a, 1, pt, n + 2, k[0].usec * 1000);
	assert_true(a.has_growth);
	assert_int_equal(a.growth_us, (2543088732268ULL - 2539557355434ULL) / 1000);
	assert_int_equal(a.growth_bps, 31838208ULL * 1000000000ULL / (2543088732268ULL - 2539557355434ULL));
	/* reads older than the window do not count; one read alone is no growth */
	mcg_oom_autopsy_growth(&a, 1, pt, n, pt[7].ns + MCG_OOM_GROWTH_WINDOW_NS + pt[7].ns - pt[6].ns);
	assert_false(a.has_growth);
	mcg_oom_autopsy_growth(&a, 1, &pt[7], 1, k[0].usec * 1000);
	assert_false(a.has_growth);
	assert_null(strstr(a.why, "usage grew"));
	/* usage that fell: said so, with its magnitude */
	late[0] = (struct mcg_oom_point){1000000000ULL, 64ULL << 20};
	late[1] = (struct mcg_oom_point){3000000000ULL, 32ULL << 20};
	mcg_oom_autopsy_growth(&a, 1, late, 2, 3000000000ULL);
	assert_int_equal(a.growth_bps, -(16LL << 20));
	assert_non_null(strstr(a.why, "; usage fell 16 MiB/s over the last 2.0 s"));
}

/*
 * The early warning's verdict, on the record of the captured kill (the
 * kernel's counters and memory.stat dump at the kill: usage at the 32 MiB
 * limit, no page cache) and variations of it.
 */
static void test_warn_eval(void **state)
{
	struct mcg_oom_parser *p;
	struct mcg_oom_kill k[2];
	struct mcg_oom_autopsy a;
	struct mcg_record cur, prev;
	struct mcg_oom_warning wn;

	(void)state;
	assert_int_equal(mcg_oom_parser_new(&p), 0);
	assert_int_equal(feed_file(p, "oom-v1-growth.kmsg", k, 2), 1);
	mcg_oom_parser_free(p);
	mcg_oom_autopsy_build(&k[0], 1, NULL, 0, 0, &a);
	cur = a.rec;
	assert_int_equal(mcg_record_get(&cur, MCG_K_USAGE, 0), 32ULL << 20);
	assert_int_equal(mcg_record_get(&cur, MCG_K_LIMIT, 0), 32ULL << 20);
	assert_true(mcg_record_has(&cur, MCG_K_FILE));
	assert_int_equal(mcg_oom_warn_margin(32ULL << 20), 1ULL << 20);
	assert_int_equal(mcg_oom_warn_margin(1ULL << 20), 256ULL << 10); /* a quarter at most */
	assert_int_equal(mcg_oom_warn_margin(8ULL << 20), 512ULL << 10); /* 512 KiB at least */
	prev = cur;
	mcg_record_set(&prev, MCG_K_FAILCNT, mcg_record_get(&cur, MCG_K_FAILCNT, 0));
	mcg_record_set(&cur, MCG_K_FAILCNT, mcg_record_get(&prev, MCG_K_FAILCNT, 0) + 212);

	/* at the limit, failcnt rising, nothing to reclaim, no swap: a warning */
	assert_true(mcg_oom_warn_eval(&prev, &cur, 100000, 1, false, &wn));
	assert_string_equal(wn.signal, "failcnt");
	assert_int_equal(wn.events, 212);
	assert_int_equal(wn.usage, 32ULL << 20);
	assert_int_equal(wn.limit, 32ULL << 20);
	assert_string_equal(wn.limit_name, "memory.memsw.limit_in_bytes");
	assert_int_equal(wn.reclaimable, 0);
	assert_string_equal(wn.why, "usage 32 MiB at memory.memsw.limit_in_bytes 32 MiB; failcnt +212 "
				    "in 100 ms; only 0 B reclaimable (no swap): an OOM kill is near");
	/* failcnt not rising: none (a cgroup merely full) */
	assert_false(mcg_oom_warn_eval(&prev, &prev, 100000, 1, false, &wn));
	/* no earlier read: a rise cannot be told; under_oom can */
	assert_false(mcg_oom_warn_eval(NULL, &cur, 0, 1, false, &wn));
	mcg_record_set(&cur, MCG_K_UNDER_OOM, 1);
	assert_true(mcg_oom_warn_eval(NULL, &cur, 0, 1, false, &wn));
	assert_string_equal(wn.signal, "under_oom");
	mcg_record_set(&cur, MCG_K_UNDER_OOM, 0);
	/* usage 2 MiB below the limit: not at it */
	mcg_record_set(&cur, MCG_K_USAGE, 30ULL << 20);
	mcg_record_set(&cur, MCG_K_MEMSW_USAGE, 30ULL << 20);
	assert_false(mcg_oom_warn_eval(&prev, &cur, 100000, 1, false, &wn));
	mcg_record_set(&cur, MCG_K_USAGE, 32ULL << 20);
	mcg_record_set(&cur, MCG_K_MEMSW_USAGE, 32ULL << 20);
	/* 6 MiB of inactive page cache: reclaim can still help */
	mcg_record_set(&cur, MCG_K_FILE, 6ULL << 20);
	mcg_record_set(&cur, MCG_K_INACTIVE_FILE, 6ULL << 20);
	assert_false(mcg_oom_warn_eval(&prev, &cur, 100000, 1, false, &wn));
	mcg_record_set(&cur, MCG_K_FILE, 0);
	mcg_record_set(&cur, MCG_K_INACTIVE_FILE, 0);
	assert_true(mcg_oom_warn_eval(&prev, &cur, 100000, 1, false, &wn));
	/* swap free on the machine and room under a larger memsw limit: anon can go to swap */
	mcg_record_set(&cur, MCG_K_MEMSW_LIMIT, 64ULL << 20);
	assert_false(mcg_oom_warn_eval(&prev, &cur, 100000, 1, true, &wn));
	/* ... but not without swap on the machine: memory.limit_in_bytes is the one hit */
	assert_true(mcg_oom_warn_eval(&prev, &cur, 100000, 1, false, &wn));
	assert_string_equal(wn.limit_name, "memory.limit_in_bytes");
	/* no limit: never */
	mcg_record_set(&cur, MCG_K_LIMIT, MCG_MAX);
	mcg_record_set(&cur, MCG_K_MEMSW_LIMIT, MCG_MAX);
	assert_false(mcg_oom_warn_eval(&prev, &cur, 100000, 1, false, &wn));

	/* v2: memory.events max rising; psi full told */
	memset(&cur, 0, sizeof(cur));
	mcg_record_set(&cur, MCG_K_USAGE, 500ULL << 20);
	mcg_record_set(&cur, MCG_K_LIMIT, 500ULL << 20);
	mcg_record_set(&cur, MCG_K_SWAP_LIMIT, 0);
	mcg_record_set(&cur, MCG_K_FILE, 3ULL << 20);
	mcg_record_set(&cur, MCG_K_INACTIVE_FILE, 3ULL << 20);
	mcg_record_set(&cur, MCG_K_EV_MAX, 40);
	mcg_record_set(&cur, MCG_K_PSI_FULL, 1500000);
	prev = cur;
	mcg_record_set(&prev, MCG_K_EV_MAX, 10);
	mcg_record_set(&prev, MCG_K_PSI_FULL, 1000000);
	assert_true(mcg_oom_warn_eval(&prev, &cur, 250000, 2, true, &wn));
	assert_string_equal(wn.signal, "max");
	assert_int_equal(wn.events, 30);
	assert_true(wn.has_psi_full);
	assert_int_equal(wn.psi_full_us, 500000);
	assert_string_equal(wn.limit_name, "memory.max");
	assert_non_null(strstr(wn.why, "; max +30 in 250 ms; only 3 MiB reclaimable (no swap); its "
					"tasks stalled 500 ms (psi full): an OOM kill is near"));
	/* a counter that went back (the cgroup recreated) is no rise */
	assert_false(mcg_oom_warn_eval(&cur, &prev, 250000, 2, true, &wn));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kmsg_record),   cmocka_unit_test(test_captured_v1),
		cmocka_unit_test(test_v2_format),     cmocka_unit_test(test_no_report),
		cmocka_unit_test(test_group),	      cmocka_unit_test(test_lines),
		cmocka_unit_test(test_continued),     cmocka_unit_test(test_event_roundtrip),
		cmocka_unit_test(test_explain_sample), cmocka_unit_test(test_captured_v2),
		cmocka_unit_test(test_cut_record), cmocka_unit_test(test_hostile_comm),
		cmocka_unit_test(test_growth_captured), cmocka_unit_test(test_warn_eval),
		cmocka_unit_test(test_event_every_field), cmocka_unit_test(test_event_decode_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
