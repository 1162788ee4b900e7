/* containers.c: containers and pods in memcgctl's messages and views: the node's names read once, a cgroup's owning container and pod, the reason a name does not resolve. */
#include "containers.h"
#include "output.h"

#include <memcg/openmetrics.h>
#include <memcg/unit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the one snapshot of names per run: a view asks for every row */
static struct mcg_names *names;
static bool names_tried;
static struct timespec names_at;

const char *cli_state_root(void)
{
	const char *s = getenv("MEMCGCTL_STATE_ROOT");

	return s && *s ? s : "/";
}

static const struct mcg_names *cli_names(void)
{
	if (!names_tried) {
		names_tried = true;
		clock_gettime(CLOCK_MONOTONIC, &names_at);
		/* a node whose state cannot be read shows IDs: the names are a help, not the view */
		if (mcg_names_load(cli_state_root(), &names) < 0)
			names = NULL;
	}
	return names;
}

/*
 * A server (export --listen) labels the cgroups it first sees long after it
 * started, and top -b runs for hours: the names are read again when asked for
 * NAMES_MAX_AGE_S after the last read (a node starting hundreds of containers
 * costs one read of the state per interval, not one per cgroup or sample).
 */
#define NAMES_MAX_AGE_S 10

static const struct mcg_names *cli_names_fresh(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (names_tried && now.tv_sec - names_at.tv_sec >= NAMES_MAX_AGE_S) {
		mcg_names_free(names);
		names = NULL;
		names_tried = false;
	}
	return cli_names();
}

int cli_open_container(struct cli *cli, const char *spec, struct mcg_group **ret)
{
	struct mcg_container_resolver_opts o = {.state_root = cli_state_root(), .crictl = "crictl"};
	struct mcg_ctx *ctx = cli_ctx(cli);
	char *cg = NULL;
	int r;

	if (!ctx)
		return -MCG_E_NOCONTROLLER;
	/* resolved once here (crictl may be asked), then opened as a path */
	r = mcg_container_resolver(ctx, spec, &cg, &o);
	if (r == 0 && !(cg = strdup(spec))) /* a cgroup of that very name right under the root */
		return -ENOMEM;
	if (r < 0) {
		cli_err("cannot resolve '%s': %s", out_esc(spec), out_esc(o.why));
		return r == -ENOENT || r == -EINVAL ? r : -ENOENT;
	}
	r = mcg_group_open(ctx, cg, ret);
	if (r < 0)
		cli_err("cannot open cgroup '%s' of '%s': %s", out_esc(cg), out_esc(spec),
			r == -ENOENT ? "no such cgroup" : mcg_strerror(r));
	free(cg);
	return r;
}

bool cli_container_of(const char *path, char *buf, size_t len)
{
	/* the form an argument takes back to it: a name two containers share is not one */
	return mcg_names_owner_spec(cli_names_fresh(), path, buf, len) > 0;
}

bool cli_pod_of(const char *path, char *buf, size_t len)
{
	struct mcg_container_ref ref;
	const char *name;

	if (!mcg_names_owner(cli_names_fresh(), path, &ref, &name) || !ref.pod_uid[0])
		return false;
	return mcg_names_pod_spec(cli_names(), ref.pod_uid, buf, len);
}

/*
 * A container first seen before its runtime wrote the state that names it:
 * the names are read again when they are older than this, at most once per
 * that time however many such cgroups the recorder meets.
 */
#define NAMES_RETRY_AGE_S 1

/* "RUNTIME:..." of a runtime mcg_runtime_name() names, or "pod:...": a container's or a pod's name */
static bool owner_form(const char *name, bool *ret_pod)
{
	enum mcg_runtime rt;

	*ret_pod = false;
	if (!name)
		return false;
	if (!strncmp(name, "pod:", 4)) {
		*ret_pod = true;
		return true;
	}
	for (rt = MCG_RT_DOCKER; rt <= MCG_RT_CRI; rt++) {
		const char *p = mcg_runtime_name(rt);
		size_t k = strlen(p);

		if (k && !strncmp(name, p, k) && name[k] == ':')
			return true;
	}
	return false;
}

size_t cli_record_name(struct mcg_ctx *ctx, const char *path, char *buf, size_t len)
{
	struct mcg_container_ref ref;
	const char *name, *ns = NULL;
	struct timespec now;
	bool pod;
	int n;

	if (!len)
		return 0;
	if (mcg_names_owner(cli_names_fresh(), path, &ref, &name) && !name &&
	    (ref.runtime != MCG_RT_NONE || !mcg_names_pod(cli_names(), ref.pod_uid, &ns))) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (names_tried && now.tv_sec - names_at.tv_sec >= NAMES_RETRY_AGE_S) {
			mcg_names_free(names);
			names = NULL;
			names_tried = false;
		}
	}
	if (mcg_names_owner(cli_names(), path, &ref, &name)) {
		/* as list and top name it, so that dump NAME finds what a view printed */
		if (ref.runtime != MCG_RT_NONE) {
			if (mcg_names_owner_spec(cli_names(), path, buf, len) != 2)
				return 0;
			n = (int)strlen(buf);
		} else {
			if (!mcg_names_pod(cli_names(), ref.pod_uid, &ns) || len < 5)
				return 0;
			memcpy(buf, "pod:", 4);
			mcg_names_pod_spec(cli_names(), ref.pod_uid, buf + 4, len - 4);
			n = (int)strlen(buf);
		}
		return n > 0 && (size_t)n + 1 < len ? (size_t)n : 0;
	}
	n = ctx ? mcg_unit_of(ctx, path, buf, len) : 0;
	if (n <= 0 || (size_t)n >= len || owner_form(buf, &pod))
		return 0;
	return (size_t)n;
}

bool cli_replay_container(const struct mcg_snapshot *s, const char *const *rec, size_t i,
			  char *buf, size_t len)
{
	struct mcg_container_ref ref;
	bool pod, in = mcg_container_from_path(s->rows[i].path, &ref) && ref.runtime != MCG_RT_NONE;
	int j;

	/* the row's own name, else an ancestor's while within the container its path names */
	for (j = (int)i; rec && j >= 0; j = s->rows[j].parent) {
		if (owner_form(rec[j], &pod) && !pod) {
			snprintf(buf, len, "%s", rec[j]);
			return true;
		}
		if (!in || strlen(s->rows[j].path) <= ref.id_end)
			break;
	}
	if (!in)
		return false;
	snprintf(buf, len, "%s:%.12s", mcg_runtime_name(ref.runtime), ref.id);
	return true;
}

bool cli_replay_pod(const struct mcg_snapshot *s, const char *const *rec, size_t i, char *buf,
		    size_t len)
{
	struct mcg_container_ref ref;
	bool pod;
	int j;

	if (!mcg_container_from_path(s->rows[i].path, &ref) || !ref.pod_uid[0])
		return false;
	/* the name recorded for the pod's own cgroup: this row or an ancestor within the pod */
	for (j = (int)i; rec && j >= 0 && strlen(s->rows[j].path) >= ref.pod_end;
	     j = s->rows[j].parent)
		if (owner_form(rec[j], &pod) && pod) {
			snprintf(buf, len, "%s", rec[j] + 4);
			return true;
		}
	snprintf(buf, len, "%s", ref.pod_uid);
	return true;
}

void cli_container_specs(void (*fn)(const char *spec, void *ud), void *ud)
{
	const struct mcg_names *n = cli_names();
	size_t i;

	for (i = 0; i < mcg_names_count(n); i++)
		fn(mcg_names_spec(n, i), ud);
}

void cli_show_owner_text(const char *path)
{
	struct mcg_container_ref ref;
	const char *name, *ns = NULL;
	char spec[600];

	if (!mcg_names_owner(cli_names(), path, &ref, &name))
		return;
	/* the argument that names it, as list prints it; then its whole ID */
	if (ref.runtime != MCG_RT_NONE && mcg_names_owner_spec(cli_names(), path, spec, sizeof(spec)))
		printf("container %s %s\n", out_esc(spec), out_esc(ref.id));
	if (ref.pod_uid[0]) {
		name = mcg_names_pod(cli_names(), ref.pod_uid, &ns);
		/* last, the argument that names it: NS/NAME, or the UID where pods share that name */
		if (!mcg_names_pod_spec(cli_names(), ref.pod_uid, spec, sizeof(spec)))
			snprintf(spec, sizeof(spec), "%s", ref.pod_uid);
		printf("pod %s%s%s %s %s", name ? out_esc(ns) : "-", name ? "/" : "",
		       name ? out_esc(name) : "", ref.pod_uid, mcg_qos_name(ref.qos));
		printf(" pod:%s\n", out_esc(spec));
	}
}

void cli_show_owner_json(FILE *f, const char *path)
{
	struct mcg_container_ref ref;
	const char *name, *ns = NULL;

	if (!mcg_names_owner(cli_names(), path, &ref, &name))
		return;
	/* absent where none owns the cgroup; a name absent where the state has none */
	if (ref.runtime != MCG_RT_NONE) {
		jw_open_object(f, "container");
		jw_string(f, "runtime", mcg_runtime_name(ref.runtime));
		jw_string(f, "id", ref.id);
		if (name)
			jw_string(f, "name", name);
		jw_close_object(f);
	}
	if (ref.pod_uid[0]) {
		name = mcg_names_pod(cli_names(), ref.pod_uid, &ns);
		jw_open_object(f, "pod");
		jw_string(f, "uid", ref.pod_uid);
		if (name) {
			jw_string(f, "namespace", ns);
			jw_string(f, "name", name);
		}
		jw_string(f, "qos", mcg_qos_name(ref.qos));
		jw_close_object(f);
	}
}

/* ,KEY="VALUE" onto *OUT (of *LEN), VALUE as a cgroup label's (mcg_om_label_dup) */
static bool om_add(char **out, size_t *len, const char *key, const char *value)
{
	char *v = mcg_om_label_dup(value), *n;
	size_t k;

	if (!v)
		return false;
	k = strlen(key) + strlen(v) + 4;
	n = realloc(*out, *len + k + 1);
	if (!n) {
		free(v);
		return false;
	}
	snprintf(n + *len, k + 1, ",%s=\"%s\"", key, v);
	*len += k;
	*out = n;
	free(v);
	return true;
}

char *cli_om_container_labels(char *labels, const char *path)
{
	struct mcg_container_ref ref;
	const char *name, *pod = NULL, *ns = NULL;
	char who[300];
	size_t len;

	if (!labels || !mcg_names_owner(cli_names_fresh(), path, &ref, &name))
		return labels;
	len = strlen(labels);
	/* Kubernetes' label names and values (kubelet's cAdvisor metrics): the container's name */
	if (ref.runtime != MCG_RT_NONE) {
		snprintf(who, sizeof(who), "%.*s", name ? (int)strlen(name) : 12, name ? name : ref.id);
		if (!om_add(&labels, &len, "container", who))
			return labels;
	}
	if (ref.pod_uid[0]) {
		pod = mcg_names_pod(cli_names(), ref.pod_uid, &ns);
		if (!om_add(&labels, &len, "pod", pod ? pod : ref.pod_uid))
			return labels;
		if (pod)
			om_add(&labels, &len, "namespace", ns);
	}
	return labels;
}
