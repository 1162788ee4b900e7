/* crictl.c: a Kubernetes pod's UID from crictl (the CRI runtime's own answer) where the runtime's state files name no pod: one exec, no shell, a bounded time and output. */
#include "sys/sys.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * crictl asks the runtime's socket (/etc/crictl.yaml, else the default
 * endpoints): no API server. It is run without a shell, with its arguments
 * as given (a pod's name is data, never a command line), stdin and stderr on
 * /dev/null, and killed when it takes longer than CRICTL_TIMEOUT_MS or
 * writes more than CRICTL_OUTPUT_MAX: a runtime that hangs does not hang the
 * command the user typed.
 */
#define CRICTL_TIMEOUT_MS 5000
#define CRICTL_OUTPUT_MAX (4u << 20) /* "crictl pods -o json" of a full node: ~1 KiB a pod */

extern char **environ;

struct pick {
	const char *ns, *name;
	char cur_ns[254], cur_name[254], cur_uid[MCG_POD_UID_MAX + 1];
	char *uid;
	size_t uidlen;
	bool found;
};

/* {"items": [{"id", "metadata": {"name", "uid", "namespace", "attempt"}, "state"}]} */
static int pick_cb(enum mcg__json_event ev, const char *const *keys, size_t depth,
		   const char *val, size_t vlen, void *data)
{
	struct pick *p = data;

	if (depth < 2 || strcmp(keys[0], "items") || strcmp(keys[1], "[]"))
		return 0;
	if (ev == MCG__JSON_STRING && depth == 4 && !strcmp(keys[2], "metadata")) {
		char *slot = !strcmp(keys[3], "name")	   ? p->cur_name
			     : !strcmp(keys[3], "namespace") ? p->cur_ns
			     : !strcmp(keys[3], "uid")	   ? p->cur_uid
							   : NULL;
		size_t cap = slot == p->cur_uid ? sizeof(p->cur_uid) : sizeof(p->cur_name);

		if (slot && vlen < cap)
			memcpy(slot, val, vlen + 1);
		return 0;
	}
	if (ev == MCG__JSON_END && depth == 2) {
		/* --name is a pattern to crictl: the match is exact here */
		if (!p->found && !strcmp(p->cur_ns, p->ns) && !strcmp(p->cur_name, p->name) &&
		    p->cur_uid[0] && strlen(p->cur_uid) < p->uidlen) {
			strcpy(p->uid, p->cur_uid);
			p->found = true;
		}
		p->cur_ns[0] = p->cur_name[0] = p->cur_uid[0] = '\0';
	}
	return 0;
}

int mcg__crictl_pods_parse(const char *json, size_t len, const char *ns, const char *name,
			   char *uid, size_t uidlen)
{
	struct pick p = {.ns = ns, .name = name, .uid = uid, .uidlen = uidlen};
	int r = mcg__json_scan(json, len, pick_cb, &p);

	if (r < 0)
		return r;
	return p.found ? 1 : 0;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000L + (now.tv_nsec - t0->tv_nsec) / 1000000L;
}

int mcg__crictl_pod_uid(const char *crictl, const char *ns, const char *name, char *uid,
			size_t uidlen, char *why, size_t whylen)
{
	/* posix_spawn's argv is char *const[]: its strings are not written */
	char a_pods[] = "pods", a_ns[] = "--namespace", a_name[] = "--name", a_o[] = "-o",
	     a_json[] = "json";
	char *argv[] = {(char *)crictl, a_pods, a_ns, (char *)ns, a_name, (char *)name, a_o, a_json,
			NULL};
	posix_spawn_file_actions_t fa;
	struct timespec t0;
	char *out = NULL;
	size_t n = 0;
	int fds[2], st = 0, r;
	bool killed = false;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	r = posix_spawnp(&pid, crictl, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (r) {
		close(fds[0]);
		snprintf(why, whylen, "%s: %s", crictl, strerror(r));
		return -r;
	}
	out = malloc(CRICTL_OUTPUT_MAX + 1);
	if (!out) {
		kill(pid, SIGKILL);
		killed = true;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (out) {
		struct pollfd pfd = {fds[0], POLLIN, 0};
		long left = CRICTL_TIMEOUT_MS - ms_since(&t0);
		ssize_t k;

		if (left <= 0 || n >= CRICTL_OUTPUT_MAX) {
			kill(pid, SIGKILL); /* ours: spawned above */
			killed = true;
			break;
		}
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			break;
		if (!(pfd.revents & (POLLIN | POLLHUP)))
			continue;
		k = read(fds[0], out + n, CRICTL_OUTPUT_MAX - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!out)
		return -ENOMEM;
	if (killed && n >= CRICTL_OUTPUT_MAX) {
		snprintf(why, whylen, "%s pods: more than %u bytes of answer", crictl,
			 CRICTL_OUTPUT_MAX);
		free(out);
		return -EFBIG;
	}
	if (killed) {
		snprintf(why, whylen, "%s pods: no answer within %d ms", crictl, CRICTL_TIMEOUT_MS);
		free(out);
		return -ETIMEDOUT;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(why, whylen, "%s pods: exit status %d", crictl,
			 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		free(out);
		return -EIO;
	}
	r = mcg__crictl_pods_parse(out, n, ns, name, uid, uidlen);
	free(out);
	if (r < 0)
		snprintf(why, whylen, "%s pods: not the JSON crictl writes", crictl);
	else if (r == 0)
		snprintf(why, whylen, "%s pods: no pod %s/%s", crictl, ns, name);
	return r;
}
