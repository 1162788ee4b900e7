/* container-names.c: container and pod names from the runtimes' local state files, and the resolver of docker:, podman:, containerd: and pod: CGROUP arguments. */
#include "sys/sys.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Where each name comes from (paths under the state root, "/" on a host):
 *   docker      var/lib/docker/containers/ID/config.v2.json: "Name" ("/web")
 *   podman      var/lib/containers/storage/overlay-containers/containers.json:
 *               [{"id": ..., "names": [...]}] (c/storage, rootful podman)
 *   CRI-O       var/lib/containers/storage/overlay-containers/ID/userdata/config.json:
 *               the OCI spec, annotations io.kubernetes.pod.{name,namespace,uid} and
 *               io.kubernetes.container.name
 *   containerd  run/containerd/io.containerd.runtime.v2.task/NS/ID/config.json: the
 *               running task's OCI spec, linux.cgroupsPath, and for CRI pods the
 *               annotations io.kubernetes.cri.{sandbox-name,sandbox-namespace,
 *               sandbox-uid,container-name,container-type}
 * None needs a running daemon or API server: the files are what the runtimes
 * keep for their own restarts. They are root's, and a directory or file that
 * is not (a link, writable by others) is skipped as if absent: a name from it
 * would let its writer point memcgctl, running as root, at another cgroup.
 */
#define STATE_FILE_MAX (16u << 20) /* containers.json of thousands of containers: a few MiB */
#define WALK_DEPTH_MAX 10	   /* kind's /kubelet.slice/.../pod.slice/ID.scope is 5 deep */

struct cname {
	enum mcg_runtime rt;
	char *id, *name, *ns, *cgpath, *pod_uid;
};

struct pname {
	char *uid, *ns, *name;
};

enum src { SRC_DOCKER, SRC_PODMAN, SRC_CONTAINERD, SRC__N };

static const char *const src_dirs[SRC__N] = {
	[SRC_DOCKER] = "var/lib/docker/containers",
	[SRC_PODMAN] = "var/lib/containers/storage/overlay-containers",
	[SRC_CONTAINERD] = "run/containerd/io.containerd.runtime.v2.task",
};

struct mcg_names {
	char *root;
	struct cname *c;
	size_t nc, capc;
	struct pname *p;
	size_t np, capp;
	char **spec;
	size_t nspec, capspec;
	int status[SRC__N]; /* containers read, or -errno of the directory */
};

static bool is_id(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i == MCG_CONTAINER_ID_LEN;
}

/* A name safe to keep: printable, no '/' unless a namespace's, bounded. */
static bool name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 253)
		return false;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

static char *dup_ok(const char *s)
{
	return s && name_ok(s, strlen(s)) ? strdup(s) : NULL;
}

/* "PREFIXA" or "PREFIXA/B": a CGROUP argument that names a container or pod. */
/* A CGROUP argument that names a container or pod, for completion (duplicates once). */
static int add_spec(struct mcg_names *n, const char *spec)
{
	size_t i;

	for (i = 0; i < n->nspec; i++)
		if (!strcmp(n->spec[i], spec))
			return 0;
	if (mcg_grow(&n->spec, &n->capspec, n->nspec, sizeof(char *), 16) < 0)
		return -ENOMEM;
	n->spec[n->nspec] = strdup(spec);
	if (!n->spec[n->nspec])
		return -ENOMEM;
	n->nspec++;
	return 0;
}

static int add_container(struct mcg_names *n, enum mcg_runtime rt, const char *id,
			 const char *name, const char *ns, const char *cgpath, const char *pod_uid)
{
	struct cname *c;

	if (mcg_grow(&n->c, &n->capc, n->nc, sizeof(*n->c), 16) < 0)
		return -ENOMEM;
	c = &n->c[n->nc];
	memset(c, 0, sizeof(*c));
	c->rt = rt;
	c->id = strdup(id);
	c->name = dup_ok(name);
	c->ns = dup_ok(ns);
	c->cgpath = cgpath && *cgpath ? strdup(cgpath) : NULL;
	c->pod_uid = dup_ok(pod_uid);
	if (!c->id) {
		free(c->name);
		free(c->ns);
		free(c->cgpath);
		free(c->pod_uid);
		return -ENOMEM;
	}
	n->nc++;
	return 0;
}

static int add_pod(struct mcg_names *n, const char *uid, const char *ns, const char *name)
{
	struct pname *p;
	size_t i;

	if (!uid || !ns || !name || !name_ok(uid, strlen(uid)) || !name_ok(ns, strlen(ns)) ||
	    !name_ok(name, strlen(name)) || strchr(ns, '/') || strchr(name, '/'))
		return 0;
	for (i = 0; i < n->np; i++)
		if (!strcmp(n->p[i].uid, uid))
			return 0; /* every container of a pod names it */
	if (mcg_grow(&n->p, &n->capp, n->np, sizeof(*n->p), 16) < 0)
		return -ENOMEM;
	p = &n->p[n->np];
	p->uid = strdup(uid);
	p->ns = strdup(ns);
	p->name = strdup(name);
	if (!p->uid || !p->ns || !p->name) {
		free(p->uid);
		free(p->ns);
		free(p->name);
		return -ENOMEM;
	}
	n->np++;
	return 0;
}

/* A state file: regular, the effective user's, writable by nobody else; NUL-terminated. */
static int read_state(int dirfd, const char *name, char **ret, size_t *ret_len)
{
	struct stat st;
	int fd = mcg_openat_file(dirfd, name, O_RDONLY, 0);

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return -MCG_E_UNTRUSTED;
	}
	return mcg__read_fd(fd, STATE_FILE_MAX, ret, ret_len);
}

static int open_src(const char *root, enum src s, int *ret_fd)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", strcmp(root, "/") ? root : "",
			     src_dirs[s]) >= sizeof(path))
		return -ENAMETOOLONG;
	return mcg_trusted_dir(path, 0, false, ret_fd);
}

/* ---- docker ---- */

static int docker_name_cb(enum mcg__json_event ev, const char *const *keys, size_t depth,
			  const char *val, size_t vlen, void *data)
{
	char **name = data;

	(void)vlen;
	if (ev == MCG__JSON_STRING && depth == 1 && !strcmp(keys[0], "Name") && !*name)
		*name = strdup(val[0] == '/' ? val + 1 : val);
	return 0;
}

static int docker_one(int dirfd, const struct dirent *de, void *ud)
{
	struct mcg_names *n = ud;
	char *buf = NULL, *name = NULL;
	size_t len;
	int fd, r;

	if (!is_id(de->d_name) || mcg__trusted_subdir(dirfd, de->d_name, 0, false, &fd) < 0)
		return 0;
	r = read_state(fd, "config.v2.json", &buf, &len);
	close(fd);
	if (r < 0)
		return 0;
	r = mcg__json_scan(buf, len, docker_name_cb, &name);
	free(buf);
	if (r == -ENOMEM) {
		free(name);
		return r;
	}
	r = add_container(n, MCG_RT_DOCKER, de->d_name, r == 0 ? name : NULL, NULL, NULL, NULL);
	free(name);
	if (r == 0)
		n->status[SRC_DOCKER]++;
	return r;
}

/* ---- OCI bundles (containerd's tasks, CRI-O's containers) ---- */

struct oci {
	char *cgpath, *type, *pod_name, *pod_ns, *pod_uid, *cname;
};

static void oci_free(struct oci *o)
{
	free(o->cgpath);
	free(o->type);
	free(o->pod_name);
	free(o->pod_ns);
	free(o->pod_uid);
	free(o->cname);
}

static int oci_cb(enum mcg__json_event ev, const char *const *keys, size_t depth,
		  const char *val, size_t vlen, void *data)
{
	static const struct {
		const char *key;
		size_t off;
	} ann[] = {
		{"io.kubernetes.cri.container-type", offsetof(struct oci, type)},
		{"io.kubernetes.cri.sandbox-name", offsetof(struct oci, pod_name)},
		{"io.kubernetes.cri.sandbox-namespace", offsetof(struct oci, pod_ns)},
		{"io.kubernetes.cri.sandbox-uid", offsetof(struct oci, pod_uid)},
		{"io.kubernetes.cri.container-name", offsetof(struct oci, cname)},
		{"io.kubernetes.cri-o.ContainerType", offsetof(struct oci, type)},
		{"io.kubernetes.pod.name", offsetof(struct oci, pod_name)},
		{"io.kubernetes.pod.namespace", offsetof(struct oci, pod_ns)},
		{"io.kubernetes.pod.uid", offsetof(struct oci, pod_uid)},
		{"io.kubernetes.container.name", offsetof(struct oci, cname)},
	};
	struct oci *o = data;
	char **slot = NULL;
	size_t i;

	(void)vlen;
	if (ev != MCG__JSON_STRING || depth != 2)
		return 0;
	if (!strcmp(keys[0], "linux") && !strcmp(keys[1], "cgroupsPath"))
		slot = &o->cgpath;
	else if (!strcmp(keys[0], "annotations"))
		for (i = 0; i < MCG_ARRAY_SIZE(ann) && !slot; i++)
			if (!strcmp(keys[1], ann[i].key))
				slot = (char **)((char *)o + ann[i].off);
	if (!slot || *slot)
		return 0;
	*slot = strdup(val);
	return *slot ? 0 : -ENOMEM;
}

/*
 * linux.cgroupsPath as a path: a cgroupfs path as it is, or systemd's
 * "SLICE:PREFIX:NAME" (runc, crun) as the slice's nesting and PREFIX-NAME.scope:
 * "kubepods-burstable-podU.slice:cri-containerd:ID" is
 * /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podU.slice/cri-containerd-ID.scope.
 */
static char *cgroups_path(const char *cg)
{
	const char *c1, *c2;
	char *out, *o;
	size_t n, i;

	if (!cg || !*cg)
		return NULL;
	c1 = strchr(cg, ':');
	if (!c1)
		return cg[0] == '/' ? strdup(cg) : NULL;
	c2 = strchr(c1 + 1, ':');
	if (!c2 || strchr(c2 + 1, ':') || strchr(cg, '/'))
		return NULL;
	n = strlen(cg);
	if (n > 1024)
		return NULL; /* no slice nests that deep */
	out = malloc(n * n + 32); /* each prefix of the slice once: quadratic, and short */
	if (!out)
		return NULL;
	o = out;
	if (c1 > cg && !(c1 - cg == 7 && !memcmp(cg, "-.slice", 7))) {
		size_t slen = (size_t)(c1 - cg);

		if (slen <= 6 || memcmp(c1 - 6, ".slice", 6)) {
			free(out);
			return NULL;
		}
		slen -= 6;
		for (i = 0; i <= slen; i++) {
			if (i == slen || cg[i] == '-') {
				*o++ = '/';
				memcpy(o, cg, i);
				o += i;
				memcpy(o, ".slice", 6);
				o += 6;
			}
		}
	}
	*o++ = '/';
	memcpy(o, c1 + 1, (size_t)(c2 - c1 - 1));
	o += c2 - c1 - 1;
	if (c2 - c1 - 1 > 0)
		*o++ = '-';
	strcpy(o, c2 + 1);
	o += strlen(c2 + 1);
	if (!(o - out > 6 && !memcmp(o - 6, ".slice", 6)))
		strcpy(o, ".scope");
	return out;
}

/* One bundle's config.json under DIRFD: a container of RT (and its pod). */
static int oci_one(struct mcg_names *n, int dirfd, enum mcg_runtime rt, const char *ns,
		   const char *id, bool kube_only)
{
	struct oci o = {0};
	struct mcg_container_ref ref;
	char *buf = NULL, *path = NULL;
	const char *uid;
	size_t len;
	int r;

	r = read_state(dirfd, "config.json", &buf, &len);
	if (r < 0)
		return 0;
	r = mcg__json_scan(buf, len, oci_cb, &o);
	free(buf);
	if (r == -ENOMEM)
		goto out;
	r = 0;
	if (kube_only && !o.pod_uid && !o.pod_name)
		goto out;
	path = cgroups_path(o.cgpath);
	uid = o.pod_uid;
	/* containerd before 1.7 has no sandbox-uid: the pod's cgroup says it */
	if (!uid && path && mcg_container_from_path(path, &ref) && ref.pod_uid[0])
		uid = ref.pod_uid;
	r = add_container(n, rt, id, o.cname ? o.cname : NULL, ns, path, uid);
	if (r == 0 && uid)
		r = add_pod(n, uid, o.pod_ns, o.pod_name);
out:
	free(path);
	oci_free(&o);
	return r;
}

struct ns_walk {
	struct mcg_names *n;
	const char *ns;
};

static int containerd_task(int dirfd, const struct dirent *de, void *ud)
{
	struct ns_walk *w = ud;
	int fd, r;

	if (de->d_name[0] == '.' || mcg__trusted_subdir(dirfd, de->d_name, 0, false, &fd) < 0)
		return 0;
	r = oci_one(w->n, fd, MCG_RT_CONTAINERD, w->ns, de->d_name, false);
	close(fd);
	if (r == 0)
		w->n->status[SRC_CONTAINERD]++;
	return r;
}

static int containerd_ns(int dirfd, const struct dirent *de, void *ud)
{
	struct ns_walk w = {ud, de->d_name};
	int fd, r;

	if (de->d_name[0] == '.' || !name_ok(de->d_name, strlen(de->d_name)) ||
	    mcg__trusted_subdir(dirfd, de->d_name, 0, false, &fd) < 0)
		return 0;
	r = mcg__dir_each(fd, containerd_task, &w);
	close(fd);
	return r == -ENOMEM ? r : 0;
}

/* ---- podman (containers.json) and CRI-O (the same c/storage tree) ---- */

struct podman_cur {
	struct mcg_names *n;
	char *id, *name;
	int err;
};

static int podman_cb(enum mcg__json_event ev, const char *const *keys, size_t depth,
		     const char *val, size_t vlen, void *data)
{
	struct podman_cur *c = data;
	size_t i;
	int r;

	(void)vlen;
	if (ev == MCG__JSON_STRING && depth == 2 && !strcmp(keys[0], "[]") &&
	    !strcmp(keys[1], "id") && !c->id)
		c->id = strdup(val);
	else if (ev == MCG__JSON_STRING && depth == 3 && !strcmp(keys[0], "[]") &&
		 !strcmp(keys[1], "names") && !c->name)
		c->name = strdup(val);
	if (ev != MCG__JSON_END || depth != 1)
		return 0;
	r = 0;
	if (c->id && is_id(c->id)) {
		for (i = 0; i < c->n->nc; i++)
			if (!strcmp(c->n->c[i].id, c->id))
				break; /* a CRI-O container, named by its pod */
		if (i == c->n->nc) {
			r = add_container(c->n, MCG_RT_PODMAN, c->id, c->name, NULL, NULL, NULL);
			if (r == 0)
				c->n->status[SRC_PODMAN]++;
		}
	}
	free(c->id);
	free(c->name);
	c->id = c->name = NULL;
	return r;
}

static int crio_one(int dirfd, const struct dirent *de, void *ud)
{
	int fd, ufd, r;

	if (!is_id(de->d_name) || mcg__trusted_subdir(dirfd, de->d_name, 0, false, &fd) < 0)
		return 0;
	r = mcg__trusted_subdir(fd, "userdata", 0, false, &ufd);
	close(fd);
	if (r < 0)
		return 0;
	{
		struct mcg_names *n = ud;
		size_t before = n->nc;

		r = oci_one(n, ufd, MCG_RT_CRIO, NULL, de->d_name, true);
		if (n->nc > before)
			n->status[SRC_PODMAN]++;
	}
	close(ufd);
	return r;
}

static int podman_load(struct mcg_names *n, int fd)
{
	struct podman_cur c = {n, NULL, NULL, 0};
	char *buf = NULL;
	size_t len;
	int r;

	r = mcg__dir_each(fd, crio_one, n);
	if (r == -ENOMEM)
		return r;
	if (read_state(fd, "containers.json", &buf, &len) < 0)
		return 0;
	r = mcg__json_scan(buf, len, podman_cb, &c);
	free(c.id);
	free(c.name);
	free(buf);
	return r == -ENOMEM ? r : 0;
}

static int build_specs(struct mcg_names *n);

int mcg_names_load(const char *state_root, struct mcg_names **ret)
{
	struct mcg_names *n;
	int s, fd, r = 0;

	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->root = strdup(state_root && *state_root ? state_root : "/");
	if (!n->root) {
		free(n);
		return -ENOMEM;
	}
	for (s = 0; s < SRC__N && r == 0; s++) {
		n->status[s] = open_src(n->root, (enum src)s, &fd);
		if (n->status[s] < 0)
			continue;
		if (s == SRC_DOCKER)
			r = mcg__dir_each(fd, docker_one, n);
		else if (s == SRC_PODMAN)
			r = podman_load(n, fd);
		else
			r = mcg__dir_each(fd, containerd_ns, n);
		close(fd);
		if (r != -ENOMEM)
			r = 0;
	}
	if (r == 0)
		r = build_specs(n);
	if (r < 0) {
		mcg_names_free(n);
		return r;
	}
	*ret = n;
	return 0;
}

void mcg_names_free(struct mcg_names *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->nc; i++) {
		free(n->c[i].id);
		free(n->c[i].name);
		free(n->c[i].ns);
		free(n->c[i].cgpath);
		free(n->c[i].pod_uid);
	}
	for (i = 0; i < n->np; i++) {
		free(n->p[i].uid);
		free(n->p[i].ns);
		free(n->p[i].name);
	}
	mcg_strv_free(n->spec, n->nspec);
	free(n->c);
	free(n->p);
	free(n->root);
	free(n);
}

/* Does a runtime's entry answer for a path's RT (a bare CRI ID: containerd's or CRI-O's)? */
static bool rt_match(enum mcg_runtime entry, enum mcg_runtime path)
{
	if (entry == path)
		return true;
	if (path == MCG_RT_CRI)
		return entry == MCG_RT_CONTAINERD || entry == MCG_RT_CRIO;
	/* CRI-O's and podman's containers share c/storage; a crio- path is CRI-O's */
	return path == MCG_RT_CRIO && entry == MCG_RT_PODMAN;
}

const char *mcg_names_container(const struct mcg_names *n, const struct mcg_container_ref *ref)
{
	size_t i;

	if (!n || !ref || ref->runtime == MCG_RT_NONE)
		return NULL;
	for (i = 0; i < n->nc; i++)
		if (rt_match(n->c[i].rt, ref->runtime) && !strcmp(n->c[i].id, ref->id))
			return n->c[i].name;
	return NULL;
}

/*
 * The container of PATH in the state: as mcg_names_owner() finds it, with
 * the entry's index in *RET_I (SIZE_MAX: none; the path alone names it).
 * 2 when a containerd task's cgroupsPath, not the path's shape, names it.
 */
static int owner(const struct mcg_names *n, const char *path, struct mcg_container_ref *ret,
		 size_t *ret_i)
{
	struct mcg_container_ref ref;
	size_t i, k;

	*ret_i = SIZE_MAX;
	if (mcg_container_from_path(path, &ref) && ref.runtime != MCG_RT_NONE) {
		for (i = 0; n && i < n->nc; i++)
			if (rt_match(n->c[i].rt, ref.runtime) && !strcmp(n->c[i].id, ref.id)) {
				if (ref.runtime == MCG_RT_CRI)
					ref.runtime = n->c[i].rt;
				*ret_i = i;
				break;
			}
		*ret = ref;
		return 1;
	}
	for (i = 0; n && i < n->nc; i++) {
		const struct cname *c = &n->c[i];

		if (c->rt != MCG_RT_CONTAINERD || !c->cgpath ||
		    !(k = strlen(c->cgpath)) || strncmp(path, c->cgpath, k) ||
		    (path[k] && path[k] != '/'))
			continue;
		/* a task's own cgroup outside kubepods: the ID and namespace its state gives */
		if (!ref.pod_uid[0] && c->pod_uid)
			snprintf(ref.pod_uid, sizeof(ref.pod_uid), "%s", c->pod_uid);
		ref.runtime = MCG_RT_CONTAINERD;
		snprintf(ref.id, sizeof(ref.id), "%s", c->id);
		ref.id_end = k;
		*ret_i = i;
		*ret = ref;
		return 2;
	}
	if (ref.pod_uid[0]) {
		*ret = ref;
		return 1;
	}
	memset(ret, 0, sizeof(*ret));
	return 0;
}

int mcg_names_owner(const struct mcg_names *n, const char *path, struct mcg_container_ref *ret,
		    const char **ret_name)
{
	size_t i;
	int r = owner(n, path, ret, &i);

	*ret_name = NULL;
	if (r && i != SIZE_MAX)
		*ret_name = n->c[i].name;
	/* ctr's IDs are the user's ("redis"): a view shows them; the rest is too long for one */
	if (r == 2 && !*ret_name)
		*ret_name = n->c[i].id;
	return r ? 1 : 0;
}

/*
 * The one container of the form FORM ("containerd:", a runtime's
 * mcg_runtime_name()) that ARG names in the state, as a CGROUP argument
 * takes it: by its name (docker's, podman's, a Kubernetes container's), else
 * by its whole ID (ctr's own IDs, "redis", in any namespace), else by an ID
 * prefix. 1 with its index in *RET, 0 none, -EINVAL more than one (*RET_HOW:
 * "is named", "has that ID", "has an ID starting with").
 */
static int state_match(const struct mcg_names *n, enum mcg_runtime form, const char *arg,
		       size_t *ret, const char **ret_how)
{
	static const char *const how[] = {"is named", "has that ID", "has an ID starting with"};
	size_t i, k = strlen(arg), found;
	bool hex = k && strspn(arg, "0123456789abcdef") == k; /* a prefix of an ID of hex */
	int pass;

	for (pass = 0; n && pass < 3; pass++) {
		found = SIZE_MAX;
		for (i = 0; i < n->nc; i++) {
			const struct cname *c = &n->c[i];
			bool hit = pass == 0   ? c->name && !strcmp(c->name, arg)
				   : pass == 1 ? !strcmp(c->id, arg)
					       : hex && !strncmp(c->id, arg, k);

			if (!hit || !rt_match(c->rt, form))
				continue;
			if (found != SIZE_MAX && strcmp(n->c[found].id, c->id)) {
				*ret_how = how[pass];
				return -EINVAL;
			}
			found = i;
		}
		if (found != SIZE_MAX) {
			*ret = found;
			return 1;
		}
	}
	return 0;
}

/* Does FORM:ARG name entry I (and no other)? */
static bool names_only(const struct mcg_names *n, enum mcg_runtime form, const char *arg, size_t i)
{
	const char *how;
	size_t got;

	return state_match(n, form, arg, &got, &how) == 1 && !strcmp(n->c[got].id, n->c[i].id);
}

/*
 * The argument that names entry I as FORM: its name where that is its own,
 * else ctr's ID, else the shortest ID prefix of 12 digits or more that is
 * its own, else containerd:NAMESPACE/ID or the whole ID.
 */
static void entry_spec(const struct mcg_names *n, size_t i, enum mcg_runtime form, char *buf,
		       size_t len)
{
	const struct cname *c = &n->c[i];
	const char *rt = mcg_runtime_name(form);
	char pre[MCG_CONTAINER_ID_LEN + 1];
	size_t k;

	if (c->name && names_only(n, form, c->name, i)) {
		snprintf(buf, len, "%s:%s", rt, c->name);
		return;
	}
	if (is_id(c->id)) {
		for (k = 12; k < MCG_CONTAINER_ID_LEN; k++) {
			memcpy(pre, c->id, k);
			pre[k] = '\0';
			if (names_only(n, form, pre, i)) {
				snprintf(buf, len, "%s:%s", rt, pre);
				return;
			}
		}
	} else if (names_only(n, form, c->id, i)) {
		snprintf(buf, len, "%s:%s", rt, c->id);
		return;
	}
	if (form == MCG_RT_CONTAINERD && c->ns)
		snprintf(buf, len, "containerd:%s/%s", c->ns, c->id);
	else
		snprintf(buf, len, "%s:%s", rt, c->id);
}

int mcg_names_owner_spec(const struct mcg_names *n, const char *path, char *buf, size_t len)
{
	struct mcg_container_ref ref;
	size_t i;

	if (!len || !owner(n, path, &ref, &i) || ref.runtime == MCG_RT_NONE)
		return 0;
	if (i == SIZE_MAX) {
		/* the path's ID, which the resolver finds among the cgroups */
		snprintf(buf, len, "%s:%.12s", mcg_runtime_name(ref.runtime), ref.id);
		return 1;
	}
	entry_spec(n, i, ref.runtime, buf, len);
	return 2;
}

/* The pods the state names NS/NAME (a pod deleted and made again keeps its name, not its UID). */
static size_t pods_named(const struct mcg_names *n, const char *ns, size_t nslen, const char *name)
{
	size_t i, count = 0;

	for (i = 0; n && i < n->np; i++)
		if (strlen(n->p[i].ns) == nslen && !memcmp(n->p[i].ns, ns, nslen) &&
		    !strcmp(n->p[i].name, name))
			count++;
	return count;
}

const char *mcg_names_pod(const struct mcg_names *n, const char *uid, const char **ret_ns)
{
	size_t i;

	if (!n || !uid || !*uid)
		return NULL;
	for (i = 0; i < n->np; i++)
		if (!strcmp(n->p[i].uid, uid)) {
			if (ret_ns)
				*ret_ns = n->p[i].ns;
			return n->p[i].name;
		}
	return NULL;
}

bool mcg_names_pod_spec(const struct mcg_names *n, const char *uid, char *buf, size_t len)
{
	const char *ns = NULL, *name = mcg_names_pod(n, uid, &ns);

	if (!len || !uid || !*uid)
		return false;
	if (name && pods_named(n, ns, strlen(ns), name) == 1)
		snprintf(buf, len, "%s/%s", ns, name);
	else
		snprintf(buf, len, "%s", uid);
	return true;
}

/* Completion's words: each container and pod as the views name them. */
static int build_specs(struct mcg_names *n)
{
	char buf[600];
	size_t i;

	for (i = 0; i < n->nc; i++) {
		entry_spec(n, i, n->c[i].rt, buf, sizeof(buf));
		if (add_spec(n, buf) < 0)
			return -ENOMEM;
	}
	for (i = 0; i < n->np; i++) {
		memcpy(buf, "pod:", 4);
		mcg_names_pod_spec(n, n->p[i].uid, buf + 4, sizeof(buf) - 4);
		if (add_spec(n, buf) < 0)
			return -ENOMEM;
	}
	return 0;
}

size_t mcg_names_count(const struct mcg_names *n)
{
	return n ? n->nspec : 0;
}

const char *mcg_names_spec(const struct mcg_names *n, size_t i)
{
	return n && i < n->nspec ? n->spec[i] : NULL;
}

/* ---- the hierarchy's container and pod cgroups ---- */

struct hit {
	enum mcg_runtime rt; /* MCG_RT_NONE: a pod's cgroup */
	char id[MCG_CONTAINER_ID_LEN + 1];
	char uid[MCG_POD_UID_MAX + 1];
	char *path;
};

/* Listed on first use (hits_walk): a name its state names at a usual path needs no walk. */
struct hits {
	struct hit *v;
	size_t n, cap;
	const struct mcg_ctx *ctx;
	bool walked;
};

static void hits_free(struct hits *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		free(h->v[i].path);
	free(h->v);
}

static int hit_add(struct hits *h, const struct mcg_container_ref *ref, bool pod, const char *path)
{
	struct hit *x;

	if (mcg_grow(&h->v, &h->cap, h->n, sizeof(*h->v), 16) < 0)
		return -ENOMEM;
	x = &h->v[h->n];
	memset(x, 0, sizeof(*x));
	x->rt = pod ? MCG_RT_NONE : ref->runtime;
	strcpy(x->id, pod ? "" : ref->id);
	strcpy(x->uid, ref->pod_uid);
	x->path = strdup(path);
	if (!x->path)
		return -ENOMEM;
	h->n++;
	return 0;
}

/*
 * Every container's and pod's own cgroup below the directory FD (PATH, LEN):
 * not below a container (its subtree is its own), to WALK_DEPTH_MAX levels.
 */
static int walk(int fd, char *path, size_t len, int depth, struct hits *h)
{
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (depth >= WALK_DEPTH_MAX || mcg__opendir_at(fd, &d) < 0)
		return 0;
	while (r == 0 && (de = readdir(d))) {
		struct mcg_container_ref ref;
		size_t k = strlen(de->d_name);
		bool descend = true;
		int cfd;

		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (len + 1 + k >= MCG_PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, de->d_name, k + 1);
		if (mcg_container_from_path(path, &ref)) {
			if (ref.runtime != MCG_RT_NONE && ref.id_end == len + 1 + k) {
				r = hit_add(h, &ref, false, path);
				descend = false;
			} else if (ref.pod_uid[0] && ref.pod_end == len + 1 + k) {
				r = hit_add(h, &ref, true, path);
			} else if (ref.runtime != MCG_RT_NONE) {
				descend = false;
			}
		}
		if (r == 0 && descend) {
			cfd = openat(dirfd(d), de->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (cfd >= 0) {
				r = walk(cfd, path, len + 1 + k, depth + 1, h);
				close(cfd);
			}
		}
		path[len] = '\0';
	}
	closedir(d);
	return r;
}

static int walk_ctx(const struct mcg_ctx *ctx, struct hits *h)
{
	char *path = malloc(MCG_PATH_MAX + 1);
	int fd, r;

	if (!path)
		return -ENOMEM;
	path[0] = '\0';
	fd = openat(ctx->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(path);
		return r;
	}
	r = walk(fd, path, 0, 0, h);
	close(fd);
	free(path);
	return r;
}

/* H, listed now if it was not yet (a failed walk lists what it reached) */
static struct hits *hits_walk(struct hits *h)
{
	if (!h->walked) {
		h->walked = true;
		walk_ctx(h->ctx, h);
	}
	return h;
}

/* ---- the resolver ---- */

static const struct {
	const char *prefix;
	enum mcg_runtime rt;
} forms[] = {
	{"docker:", MCG_RT_DOCKER},
	{"podman:", MCG_RT_PODMAN},
	{"containerd:", MCG_RT_CONTAINERD},
	{"cri-o:", MCG_RT_CRIO},
	{"crio:", MCG_RT_CRIO}, /* CRI-O's own spelling of its cgroups */
	{"cri:", MCG_RT_CRI},	/* a CRI container whose runtime no state names */
	{"pod:", MCG_RT_NONE},
};

bool mcg_container_spec(const char *spec)
{
	size_t i;

	for (i = 0; spec && i < MCG_ARRAY_SIZE(forms); i++)
		if (!strncmp(spec, forms[i].prefix, strlen(forms[i].prefix)))
			return true;
	return false;
}

static void say(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (!why || !whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

/* What a source gave, for a message: "/var/lib/docker/containers: 3 containers". */
static void src_said(const struct mcg_names *n, enum src s, char *buf, size_t len)
{
	const char *root = strcmp(n->root, "/") ? n->root : "";

	if (n->status[s] < 0)
		snprintf(buf, len, "%s/%s: %s", root, src_dirs[s], mcg_strerror(n->status[s]));
	else
		snprintf(buf, len, "%s/%s: %d container%s", root, src_dirs[s], n->status[s],
			 n->status[s] == 1 ? "" : "s");
}

/* What the sources of FORM's containers gave: "/var/lib/docker/containers: 2 containers". */
static void form_said(const struct mcg_names *n, enum mcg_runtime form, char *buf, size_t len)
{
	size_t k;

	if (form == MCG_RT_DOCKER) {
		src_said(n, SRC_DOCKER, buf, len);
	} else if (form == MCG_RT_PODMAN || form == MCG_RT_CRIO) {
		src_said(n, SRC_PODMAN, buf, len);
	} else if (form == MCG_RT_CONTAINERD) {
		src_said(n, SRC_CONTAINERD, buf, len);
	} else {
		src_said(n, SRC_CONTAINERD, buf, len);
		k = strlen(buf);
		if (k + 2 < len) {
			memcpy(buf + k, "; ", 3);
			src_said(n, SRC_PODMAN, buf + k + 2, len - k - 2);
		}
	}
}

static bool hex_prefix(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i > 0 && i <= MCG_CONTAINER_ID_LEN;
}

/* Is a cgroup named for GOT a container of WANT (a bare CRI ID may be containerd's or CRI-O's)? */
static bool hit_ok(enum mcg_runtime want, enum mcg_runtime got)
{
	if (got == MCG_RT_NONE)
		return false;
	if (want == got)
		return true;
	if (want == MCG_RT_CRI) /* cri: takes any CRI runtime's */
		return got == MCG_RT_CONTAINERD || got == MCG_RT_CRIO;
	return got == MCG_RT_CRI && (want == MCG_RT_CONTAINERD || want == MCG_RT_CRIO);
}

/* The one container cgroup of RT whose ID starts with PREFIX: 1, 0 none, -EINVAL several. */
static int id_by_prefix(const struct hits *h, enum mcg_runtime rt, const char *prefix,
			const char **ret)
{
	const char *found = NULL;
	size_t i, k = strlen(prefix);

	for (i = 0; i < h->n; i++)
		if (hit_ok(rt, h->v[i].rt) && !strncmp(h->v[i].id, prefix, k)) {
			if (found && strcmp(found, h->v[i].id))
				return -EINVAL;
			found = h->v[i].id;
		}
	if (!found)
		return 0;
	*ret = found;
	return 1;
}

static bool is_cgroup_dir(const struct mcg_ctx *ctx, const char *path)
{
	struct stat st;

	return path[0] == '/' && path[1] &&
	       fstatat(ctx->rootfd, path + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Where the runtimes put a container of ID by default (systemd and cgroupfs
 * managers): tried before the hierarchy is listed, which on a host of
 * thousands of cgroups costs more than the rest of the command.
 */
static const char *usual_path(const struct mcg_ctx *ctx, enum mcg_runtime rt, const char *id,
			      char *buf, size_t len)
{
	/* each: what comes before the ID, what after */
	static const char *const docker[] = {"/system.slice/docker-", ".scope", "/docker/", "",
					     NULL};
	static const char *const podman[] = {"/machine.slice/libpod-", ".scope",
					     "/libpod_parent/libpod-", "", NULL};
	const char *const *f = rt == MCG_RT_DOCKER ? docker : rt == MCG_RT_PODMAN ? podman : NULL;

	for (; f && *f; f += 2) {
		snprintf(buf, len, "%s%s%s", f[0], id, f[1]);
		if (is_cgroup_dir(ctx, buf))
			return buf;
	}
	return NULL;
}

static const char *hit_path(struct hits *h, enum mcg_runtime rt, const char *id)
{
	size_t i;

	hits_walk(h);
	for (i = 0; i < h->n; i++)
		if (hit_ok(rt, h->v[i].rt) && !strcmp(h->v[i].id, id))
			return h->v[i].path;
	return NULL;
}

static int found_path(const char *p, char **ret)
{
	*ret = strdup(p);
	return *ret ? 1 : -ENOMEM;
}

/*
 * crun (podman's runtime on Debian and Fedora) on cgroup v2 under the systemd
 * manager runs the container in a child of the scope it has systemd make,
 * "container" (its run.oci.systemd.subgroup default), and writes the limits of
 * podman run --memory there: the scope is delegated and holds no task, its
 * memory.max is systemd's. The container's cgroup is that child where SCOPE
 * has one (runc makes none).
 */
static const char *crun_subgroup(const struct mcg_ctx *ctx, const char *scope, char *buf,
				 size_t len)
{
	size_t k = strlen(scope);
	int m;

	if (k < 6 || strcmp(scope + k - 6, ".scope"))
		return scope;
	m = snprintf(buf, len, "%s/container", scope);
	return m > 0 && (size_t)m < len && is_cgroup_dir(ctx, buf) ? buf : scope;
}

/*
 * RT:ARG, NAME or ID prefix (and for containerd: and cri-o: a Kubernetes
 * container's name, ctr's own IDs): the state's entry first, the cgroups'
 * IDs where the state names none.
 */
static int resolve_named(const struct mcg_ctx *ctx, const struct mcg_names *n,
			 struct hits *h, enum mcg_runtime rt, const char *arg, char **ret,
			 char *why, size_t whylen)
{
	const char *rtn = mcg_runtime_name(rt), *id = NULL, *how = NULL, *p = NULL;
	const struct cname *c = NULL;
	char said[600], usual[160], sub[4096];
	size_t i;
	int r;

	r = state_match(n, rt, arg, &i, &how);
	if (r < 0) {
		say(why, whylen, "more than one %s container %s '%s': give more of its ID%s", rtn,
		    how, arg, rt == MCG_RT_CONTAINERD ? " or containerd:NAMESPACE/ID" : "");
		return -EINVAL;
	}
	if (r > 0) {
		c = &n->c[i];
		id = c->id;
	} else if (hex_prefix(arg)) {
		r = id_by_prefix(hits_walk(h), rt, arg, &id);
		if (r < 0) {
			say(why, whylen, "ID prefix '%s' is ambiguous: more than one %s container "
					 "starts with it",
			    arg, rtn);
			return -EINVAL;
		}
	}
	if (!id) {
		form_said(n, rt, said, sizeof(said));
		hits_walk(h);
		say(why, whylen, "no %s container named '%s' or with that ID prefix (%s; %zu container cgroup%s under %s)",
		    rtn, arg, said, h->n, h->n == 1 ? "" : "s", ctx->root);
		return -ENOENT;
	}
	/* a bundle's own word for its cgroup (containerd, CRI-O), when it is one now */
	if (c && c->cgpath && is_cgroup_dir(ctx, c->cgpath))
		p = c->cgpath;
	if (!p)
		p = usual_path(ctx, rt, id, usual, sizeof(usual));
	if (!p)
		p = hit_path(h, rt, id);
	if (!p) {
		say(why, whylen, "%s container '%s' (%.12s) has no cgroup under %s (not running?)",
		    rtn, arg, id, ctx->root);
		return -ENOENT;
	}
	return found_path(rt == MCG_RT_DOCKER || rt == MCG_RT_PODMAN
				  ? crun_subgroup(ctx, p, sub, sizeof(sub))
				  : p,
			  ret);
}

static int resolve_containerd(const struct mcg_ctx *ctx, const struct mcg_names *n,
			      struct hits *h, const char *arg, char **ret, char *why,
			      size_t whylen)
{
	const char *slash = strchr(arg, '/'), *id, *p;
	char said[300];
	size_t nslen, i;

	if (!slash)
		return resolve_named(ctx, n, h, MCG_RT_CONTAINERD, arg, ret, why, whylen);
	if (slash == arg || !slash[1] || strchr(slash + 1, '/')) {
		say(why, whylen, "'containerd:%s' is not containerd:NAMESPACE/ID or containerd:NAME", arg);
		return -EINVAL;
	}
	nslen = (size_t)(slash - arg);
	id = slash + 1;
	for (i = 0; i < n->nc; i++) {
		const struct cname *c = &n->c[i];

		if (c->rt != MCG_RT_CONTAINERD || !c->ns || strlen(c->ns) != nslen ||
		    memcmp(c->ns, arg, nslen) || strcmp(c->id, id))
			continue;
		/* the task's own word for its cgroup, when it is one now */
		if (c->cgpath && is_cgroup_dir(ctx, c->cgpath))
			return found_path(c->cgpath, ret);
		if ((p = hit_path(h, MCG_RT_CONTAINERD, id)))
			return found_path(p, ret);
		say(why, whylen, "containerd task %.*s/%s has no cgroup under %s (cgroupsPath '%s')",
		    (int)nslen, arg, id, ctx->root, c->cgpath ? c->cgpath : "");
		return -ENOENT;
	}
	/* a CRI container's cgroup names its ID even where the task's bundle is unreadable */
	if (nslen == 6 && !memcmp(arg, "k8s.io", 6) && (p = hit_path(h, MCG_RT_CONTAINERD, id)))
		return found_path(p, ret);
	src_said(n, SRC_CONTAINERD, said, sizeof(said));
	say(why, whylen, "no containerd task %.*s/%s (%s)", (int)nslen, arg, id, said);
	return -ENOENT;
}

/* The cgroup of the pod of UID (with '-'): the kubelet's usual places, else the walk's. */
static const char *pod_path(const struct mcg_ctx *ctx, struct hits *h, const char *uid,
			    char *path, size_t len)
{
	/* the kubelet's default places (--cgroup-root /), both drivers, each QoS class */
	static const char *const usual[][2] = {
		{"/kubepods.slice/kubepods-pod", ".slice"},
		{"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod", ".slice"},
		{"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod", ".slice"},
		{"/kubepods/pod", ""}, {"/kubepods/burstable/pod", ""},
		{"/kubepods/besteffort/pod", ""},
	};
	char us[MCG_POD_UID_MAX + 1];
	struct mcg_container_ref ref;
	size_t i, k;

	for (k = 0; uid[k] && k < MCG_POD_UID_MAX; k++)
		us[k] = uid[k] == '-' ? '_' : uid[k];
	us[k] = '\0';
	for (i = 0; i < MCG_ARRAY_SIZE(usual); i++) {
		snprintf(path, len, "%s%s%s", usual[i][0], i < 3 ? us : uid, usual[i][1]);
		/* the path must name the pod as the walk would: a UID of its shape */
		if (is_cgroup_dir(ctx, path) && mcg_container_from_path(path, &ref) &&
		    !strcmp(ref.pod_uid, uid) && ref.pod_end == strlen(path))
			return path;
	}
	hits_walk(h);
	for (i = 0; i < h->n; i++)
		if (h->v[i].rt == MCG_RT_NONE && !strcmp(h->v[i].uid, uid))
			return h->v[i].path;
	return NULL;
}

static int resolve_pod(const struct mcg_ctx *ctx, const struct mcg_names *n,
		       struct hits *h, const char *crictl, const char *arg, char **ret,
		       char *why, size_t whylen)
{
	const char *slash = strchr(arg, '/'), *uid = NULL, *p, *q;
	char said[300], said2[300], norm[MCG_POD_UID_MAX + 1], asked[200] = "", path[160];
	char *found = NULL;
	size_t i, k, named = 0;

	if (slash) {
		size_t nslen = (size_t)(slash - arg);

		/*
		 * A pod made again under its name (a StatefulSet's web-0) has a
		 * new UID, and CRI-O keeps the old one's state: the one with a
		 * cgroup now is the pod.
		 */
		for (i = 0; i < n->np; i++) {
			if (strlen(n->p[i].ns) != nslen || memcmp(n->p[i].ns, arg, nslen) ||
			    strcmp(n->p[i].name, slash + 1))
				continue;
			named++;
			if (!uid)
				uid = n->p[i].uid;
			if (!(q = pod_path(ctx, h, n->p[i].uid, path, sizeof(path))))
				continue;
			if (found) {
				if (!strcmp(found, q))
					continue;
				say(why, whylen, "more than one pod %s has a cgroup (UIDs %s and %s): "
						 "give pod:UID",
				    arg, uid, n->p[i].uid);
				free(found);
				return -EINVAL;
			}
			uid = n->p[i].uid;
			if (!(found = strdup(q)))
				return -ENOMEM;
		}
		if (found) {
			*ret = found;
			return 1;
		}
		if (!uid && crictl && nslen < sizeof(said)) {
			/* the runtime's own answer, where its state files were not readable */
			memcpy(said, arg, nslen);
			said[nslen] = '\0';
			if (mcg__crictl_pod_uid(crictl, said, slash + 1, norm, sizeof(norm), asked,
						sizeof(asked)) == 1)
				uid = norm;
		}
		if (!uid) {
			src_said(n, SRC_CONTAINERD, said, sizeof(said));
			src_said(n, SRC_PODMAN, said2, sizeof(said2));
			say(why, whylen, "no pod %s in the CRI runtimes' state (%s; %s%s%s)", arg, said,
			    said2, asked[0] ? "; " : "", asked);
			return -ENOENT;
		}
	} else {
		k = strlen(arg);
		if (k > MCG_POD_UID_MAX) {
			say(why, whylen, "'%s' is not a pod UID or NAMESPACE/NAME", arg);
			return -EINVAL;
		}
		/* a UID as the systemd slice spells it ('_') is the same pod */
		for (i = 0; i <= k; i++)
			norm[i] = arg[i] == '_' ? '-' : arg[i];
		uid = norm;
	}
	if (!named && (p = pod_path(ctx, h, uid, path, sizeof(path))))
		return found_path(p, ret);
	say(why, whylen, "pod %s%s%s has no cgroup under %s (no kubepods cgroup of UID %s)", arg,
	    slash ? " is UID " : "", slash ? uid : "", ctx->root, uid);
	return -ENOENT;
}

int mcg_container_resolve(const struct mcg_ctx *ctx, const char *state_root, const char *spec,
			  char **ret, char *why, size_t whylen)
{
	struct mcg_container_resolver_opts o = {.state_root = state_root};

	return mcg_container_resolve_opts(ctx, &o, spec, ret, why, whylen);
}

int mcg_container_resolve_opts(const struct mcg_ctx *ctx,
			       const struct mcg_container_resolver_opts *o, const char *spec,
			       char **ret, char *why, size_t whylen)
{
	const char *state_root = o->state_root ? o->state_root : "/";
	struct mcg_names *n = NULL;
	struct hits h = {0};
	const char *arg = NULL;
	enum mcg_runtime rt = MCG_RT_NONE;
	char *path = NULL;
	size_t i;
	int r;

	for (i = 0; i < MCG_ARRAY_SIZE(forms) && !arg; i++)
		if (!strncmp(spec, forms[i].prefix, strlen(forms[i].prefix))) {
			arg = spec + strlen(forms[i].prefix);
			rt = forms[i].rt;
		}
	if (!arg)
		return -EINVAL;
	if (!*arg || !name_ok(arg, strlen(arg))) {
		say(why, whylen, "no name after '%.*s'", (int)(arg - spec), spec);
		return -EINVAL;
	}
	r = mcg_names_load(state_root, &n);
	if (r < 0) {
		say(why, whylen, "cannot read the runtimes' state: %s", mcg_strerror(r));
		return r;
	}
	h.ctx = ctx;
	if (rt == MCG_RT_DOCKER || rt == MCG_RT_PODMAN || rt == MCG_RT_CRIO || rt == MCG_RT_CRI)
		r = resolve_named(ctx, n, &h, rt, arg, &path, why, whylen);
	else if (rt == MCG_RT_CONTAINERD)
		r = resolve_containerd(ctx, n, &h, arg, &path, why, whylen);
	else
		r = resolve_pod(ctx, n, &h, o->crictl, arg, &path, why, whylen);
	if (r > 0) {
		*ret = path;
		r = 0;
	}
	hits_free(&h);
	mcg_names_free(n);
	return r;
}

int mcg_container_resolver(const struct mcg_ctx *ctx, const char *spec, char **ret, void *userdata)
{
	struct mcg_container_resolver_opts *o = userdata;
	char *why = o ? o->why : NULL;
	int r;

	if (!mcg_container_spec(spec))
		return 0;
	/* a cgroup of that name under the root is what the user means (as for units) */
	if (fstatat(ctx->rootfd, spec, &(struct stat){0}, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	if (o)
		r = mcg_container_resolve_opts(ctx, o, spec, ret, why, sizeof(o->why));
	else
		r = mcg_container_resolve(ctx, "/", spec, ret, NULL, 0);
	return r < 0 ? r : 1;
}
