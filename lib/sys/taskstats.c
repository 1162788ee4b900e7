/* taskstats.c: direct-reclaim delay per task group through generic netlink TASKSTATS (libnl). */
#include "sys/sys.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/taskstats.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

struct mcg_taskstats {
	struct nl_sock *sock;
	int family;
	/* filled by the valid-message callback */
	bool got;
	uint64_t delay, count;
	uint64_t thrash_delay, thrash_count; /* 0 from a kernel older than the field */
};

/* libnl's own codes back to errno, as far as they map. */
static int nl_to_errno(int e)
{
	switch (e < 0 ? -e : e) {
	case NLE_PERM:
		return -EPERM;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_OBJ_NOTFOUND:
		return -ENOENT;
	case NLE_INVAL:
		return -EINVAL;
	case NLE_INTR:
		return -EINTR;
	case NLE_NOADDR:
	case NLE_MSGTYPE_NOSUPPORT:
		return -ESRCH;
	default:
		return -EIO;
	}
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct mcg_taskstats *ts = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *attrs[TASKSTATS_TYPE_MAX + 1];
	struct nlattr *nest[TASKSTATS_TYPE_MAX + 1];
	struct nlattr *aggr;
	struct taskstats st;
	int len;

	if (genlmsg_parse(nlh, 0, attrs, TASKSTATS_TYPE_MAX, NULL) < 0)
		return NL_SKIP;
	aggr = attrs[TASKSTATS_TYPE_AGGR_TGID] ? attrs[TASKSTATS_TYPE_AGGR_TGID]
					       : attrs[TASKSTATS_TYPE_AGGR_PID];
	if (!aggr || nla_parse_nested(nest, TASKSTATS_TYPE_MAX, aggr, NULL) < 0 ||
	    !nest[TASKSTATS_TYPE_STATS])
		return NL_SKIP;
	/* the kernel may send a newer, larger struct: copy what this header knows */
	len = nla_len(nest[TASKSTATS_TYPE_STATS]);
	memset(&st, 0, sizeof(st));
	memcpy(&st, nla_data(nest[TASKSTATS_TYPE_STATS]),
	       (size_t)len < sizeof(st) ? (size_t)len : sizeof(st));
	if ((size_t)len < offsetof(struct taskstats, freepages_delay_total) + sizeof(st.freepages_delay_total))
		return NL_SKIP;
	ts->delay = st.freepages_delay_total;
	ts->count = st.freepages_count;
	ts->thrash_delay = st.thrashing_delay_total;
	ts->thrash_count = st.thrashing_count;
	ts->got = true;
	return NL_OK;
}

static int query(struct mcg_taskstats *ts, int attr, pid_t pid)
{
	struct nl_msg *msg = nlmsg_alloc();
	int r;

	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, ts->family, 0, 0, TASKSTATS_CMD_GET,
			 TASKSTATS_VERSION) ||
	    nla_put_u32(msg, attr, (uint32_t)pid) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	ts->got = false;
	r = nl_send_auto(ts->sock, msg);
	nlmsg_free(msg);
	if (r < 0)
		return nl_to_errno(r);
	/* one reply (or an error message): auto-ACK is off, so nothing is left queued */
	r = nl_recvmsgs_default(ts->sock);
	if (r < 0)
		return nl_to_errno(r);
	return ts->got ? 0 : -ESRCH;
}

int mcg_taskstats_open(struct mcg_taskstats **ret)
{
	struct mcg_taskstats *ts = calloc(1, sizeof(*ts));
	uint64_t d, c;
	int r;

	if (!ts)
		return -ENOMEM;
	ts->sock = nl_socket_alloc();
	if (!ts->sock) {
		free(ts);
		return -ENOMEM;
	}
	nl_socket_disable_auto_ack(ts->sock);
	r = genl_connect(ts->sock);
	if (r < 0) {
		r = nl_to_errno(r);
		goto fail;
	}
	ts->family = genl_ctrl_resolve(ts->sock, TASKSTATS_GENL_NAME);
	if (ts->family < 0) {
		r = -ENOENT;
		goto fail;
	}
	nl_socket_modify_cb(ts->sock, NL_CB_VALID, NL_CB_CUSTOM, on_valid, ts);
	/* The GET command needs CAP_NET_ADMIN: find out now, not per cgroup. */
	r = mcg_taskstats_tgid(ts, getpid(), &d, &c);
	if (r < 0)
		goto fail;
	*ret = ts;
	return 0;
fail:
	nl_socket_free(ts->sock);
	free(ts);
	return r;
}

void mcg_taskstats_close(struct mcg_taskstats *ts)
{
	if (!ts)
		return;
	nl_socket_free(ts->sock);
	free(ts);
}

int mcg_taskstats_tgid(struct mcg_taskstats *ts, pid_t tgid, uint64_t *ret_delay_ns,
		       uint64_t *ret_count)
{
	int r;

	if (!ts || tgid <= 0)
		return -EINVAL;
	r = query(ts, TASKSTATS_CMD_ATTR_TGID, tgid);
	if (r < 0)
		return r;
	*ret_delay_ns = ts->delay;
	*ret_count = ts->count;
	return 0;
}

int mcg_taskstats_tgid_delays(struct mcg_taskstats *ts, pid_t tgid, struct mcg_task_delays *ret)
{
	int r;

	if (!ts || tgid <= 0)
		return -EINVAL;
	r = query(ts, TASKSTATS_CMD_ATTR_TGID, tgid);
	if (r < 0)
		return r;
	ret->freepages_ns = ts->delay;
	ret->freepages_count = ts->count;
	ret->thrashing_ns = ts->thrash_delay;
	ret->thrashing_count = ts->thrash_count;
	return 0;
}

int mcg_delayacct_get(const struct mcg_ctx *ctx)
{
	uint64_t v;
	int r = mcg_proc_read_u64(ctx, "sys/kernel/task_delayacct", &v);

	if (r < 0)
		return r;
	return v ? 1 : 0;
}

int mcg_delayacct_set(const struct mcg_ctx *ctx, bool on)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, r;

	snprintf(path, sizeof(path), "%s/sys/kernel/task_delayacct", mcg_ctx_procfs(ctx));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, on ? "1\n" : "0\n", 2);
	r = n < 0 ? -errno : n == 2 ? 0 : -EIO;
	close(fd);
	if (r < 0)
		return r;
	r = mcg_delayacct_get(ctx);
	if (r < 0)
		return r;
	return r == (on ? 1 : 0) ? 0 : -EIO;
}
