/* test_names.c: containers and pods from cgroup paths (every runtime's and the kubelet's naming, both drivers), their names from the runtimes' state files, the resolver of docker:/podman:/containerd:/pod: arguments, and the JSON reader under it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "sys/sys.h"
#include "fx-tmp.h"

#define FIXTURE MCG_TEST_DATA "/../../cli/fixtures/containers"

/* the fixture's IDs: sha256 of a word (tests/cli/mk-containers-fixture.sh) */
static char D1[65], D2[65], P1[65], P2[65], C1[65], C2[65], S2[65], C3[65], C4[65], C5[65];
static char G[33];
static const char *B = "1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9";
static const char *B_ = "1b2c3d4e_5f60_4718_8293_a4b5c6d7e8f9";
static const char *E = "0e0e0e0e-1111-4222-8333-444455556666";
static const char *U4 = "4a4a4a4a-0000-4000-8000-000000000004";

static void hash(const char *cmd, const char *word, char *out, size_t n)
{
	char line[256];
	FILE *f;

	snprintf(line, sizeof(line), "printf %%s '%s' | %s", word, cmd);
	f = popen(line, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	pclose(f);
	memcpy(out, line, n);
	out[n] = '\0';
}

static int setup(void **state)
{
	(void)state;
	hash("sha256sum", "docker-web", D1, 64);
	hash("sha256sum", "docker-db", D2, 64);
	hash("sha256sum", "podman-cache", P1, 64);
	hash("sha256sum", "podman-queue", P2, 64);
	hash("sha256sum", "etcd", C1, 64);
	hash("sha256sum", "api", C2, 64);
	hash("sha256sum", "api-sandbox", S2, 64);
	hash("sha256sum", "shipper", C3, 64);
	hash("sha256sum", "nginx", C4, 64);
	hash("sha256sum", "orphan", C5, 64);
	hash("md5sum", "etcd", G, 32);
	return 0;
}

/* ---- paths ---- */

struct want {
	enum mcg_runtime rt;
	const char *id;
	const char *uid;
	enum mcg_qos qos;
	const char *own;     /* the container's cgroup: PATH[0..id_end) */
	const char *pod_own; /* the pod's: PATH[0..pod_end) */
};

static void check(const char *path, const struct want *w)
{
	struct mcg_container_ref r;
	int got = mcg_container_from_path(path, &r);

	if (!w) {
		assert_int_equal(got, 0);
		assert_int_equal(r.runtime, MCG_RT_NONE);
		assert_string_equal(r.id, "");
		assert_string_equal(r.pod_uid, "");
		return;
	}
	assert_int_equal(got, 1);
	assert_int_equal(r.runtime, w->rt);
	assert_string_equal(r.id, w->id ? w->id : "");
	assert_string_equal(r.pod_uid, w->uid ? w->uid : "");
	assert_int_equal(r.qos, w->qos);
	if (w->own) {
		assert_int_equal(r.id_end, strlen(w->own));
		assert_memory_equal(path, w->own, r.id_end);
	}
	if (w->pod_own) {
		assert_int_equal(r.pod_end, strlen(w->pod_own));
		assert_memory_equal(path, w->pod_own, r.pod_end);
	}
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	static char bufs[8][1024];
	static int i;
	char *b = bufs[i++ % 8];
	va_list ap;

	va_start(ap, f);
	vsnprintf(b, 1024, f, ap);
	va_end(ap);
	return b;
}

static void test_paths_runtimes(void **state)
{
	char *p;

	(void)state;
	/* docker: systemd and cgroupfs drivers; a sub-cgroup belongs to its container */
	p = fmt("/system.slice/docker-%s.scope", D1);
	check(p, &(struct want){MCG_RT_DOCKER, D1, NULL, MCG_QOS_NONE, p, NULL});
	check(fmt("/system.slice/docker-%s.scope/init", D1),
	      &(struct want){MCG_RT_DOCKER, D1, NULL, MCG_QOS_NONE, p, NULL});
	p = fmt("/docker/%s", D2);
	check(p, &(struct want){MCG_RT_DOCKER, D2, NULL, MCG_QOS_NONE, p, NULL});
	/* podman: systemd, podman's split "container" leaf, cgroupfs; conmon is not the container */
	p = fmt("/machine.slice/libpod-%s.scope", P1);
	check(p, &(struct want){MCG_RT_PODMAN, P1, NULL, MCG_QOS_NONE, p, NULL});
	check(fmt("%s/container", p), &(struct want){MCG_RT_PODMAN, P1, NULL, MCG_QOS_NONE, p, NULL});
	check(fmt("/machine.slice/libpod-conmon-%s.scope", P1), NULL);
	p = fmt("/libpod_parent/libpod-%s", P2);
	check(p, &(struct want){MCG_RT_PODMAN, P2, NULL, MCG_QOS_NONE, p, NULL});
	check("/libpod_parent/conmon", NULL);
	/* containerd and CRI-O scopes outside kubepods still name their runtime */
	check(fmt("/system.slice/cri-containerd-%s.scope", C2),
	      &(struct want){MCG_RT_CONTAINERD, C2, NULL, MCG_QOS_NONE, NULL, NULL});
	check(fmt("/crio-%s", C3), &(struct want){MCG_RT_CRIO, C3, NULL, MCG_QOS_NONE, NULL, NULL});
	check(fmt("/crio-conmon-%s", C3), NULL);
	/* not containers: short or upper-case IDs, a bare ID outside docker/ and pods */
	check("/system.slice/docker-abc.scope", NULL);
	check(fmt("/system.slice/docker-%.63s.scope", D1), NULL);
	check(fmt("/system.slice/docker-%sA.scope", D1), NULL);
	check(fmt("/%s", D1), NULL);
	check(fmt("/docker-%s", D1), NULL); /* systemd names it a .scope */
	check("/", NULL);
	check("", NULL);
	check("/system.slice/docker.service", NULL);
}

static void test_paths_kube(void **state)
{
	char *pod, *c;

	(void)state;
	/* systemd driver, each QoS class; a guaranteed pod has no QoS level */
	pod = fmt("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice", B_);
	check(pod, &(struct want){MCG_RT_NONE, NULL, B, MCG_QOS_BURSTABLE, NULL, pod});
	c = fmt("%s/cri-containerd-%s.scope", pod, C2);
	check(c, &(struct want){MCG_RT_CONTAINERD, C2, B, MCG_QOS_BURSTABLE, c, pod});
	pod = fmt("/kubepods.slice/kubepods-pod%s.slice", G);
	c = fmt("%s/cri-containerd-%s.scope", pod, C1);
	check(c, &(struct want){MCG_RT_CONTAINERD, C1, G, MCG_QOS_GUARANTEED, c, pod});
	pod = fmt("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod%s.slice",
		  "0e0e0e0e_1111_4222_8333_444455556666");
	c = fmt("%s/crio-%s.scope", pod, C3);
	check(c, &(struct want){MCG_RT_CRIO, C3, E, MCG_QOS_BESTEFFORT, c, pod});
	check(fmt("%s/crio-conmon-%s.scope", pod, C3),
	      &(struct want){MCG_RT_NONE, NULL, E, MCG_QOS_BESTEFFORT, NULL, pod});
	check(fmt("%s/docker-%s.scope", pod, D1),
	      &(struct want){MCG_RT_DOCKER, D1, E, MCG_QOS_BESTEFFORT, NULL, pod});
	/* the QoS slices themselves are no pod */
	check("/kubepods.slice", NULL);
	check("/kubepods.slice/kubepods-burstable.slice", NULL);
	/* cgroupfs driver: /kubepods[/QOS]/podUID/ID, the ID bare (containerd, docker) or crio- */
	pod = fmt("/kubepods/burstable/pod%s", U4);
	c = fmt("%s/%s", pod, C4);
	check(c, &(struct want){MCG_RT_CRI, C4, U4, MCG_QOS_BURSTABLE, c, pod});
	check(fmt("%s/crio-%s", pod, C3), &(struct want){MCG_RT_CRIO, C3, U4, MCG_QOS_BURSTABLE, NULL, pod});
	pod = fmt("/kubepods/pod%s", U4);
	check(fmt("%s/%s", pod, C5), &(struct want){MCG_RT_CRI, C5, U4, MCG_QOS_GUARANTEED, NULL, pod});
	pod = fmt("/kubepods/besteffort/pod%s", U4);
	check(pod, &(struct want){MCG_RT_NONE, NULL, U4, MCG_QOS_BESTEFFORT, NULL, pod});
	/* another cgroup root (kind: --cgroup-root=/kubelet) */
	pod = fmt("/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/"
		  "kubelet-kubepods-burstable-pod%s.slice",
		  B_);
	c = fmt("%s/cri-containerd-%s.scope", pod, C2);
	check(c, &(struct want){MCG_RT_CONTAINERD, C2, B, MCG_QOS_BURSTABLE, c, pod});
	pod = fmt("/kubelet/kubepods/burstable/pod%s", U4);
	check(pod, &(struct want){MCG_RT_NONE, NULL, U4, MCG_QOS_BURSTABLE, NULL, pod});
	/* not pods: a UID of the wrong shape or separator, a QoS level that is none, no kubepods */
	check("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234.slice", NULL);
	check(fmt("/kubepods.slice/kubepods-burstable-pod%s.slice", B), NULL); /* '-' in a slice */
	check(fmt("/kubepods/burstable/pod%s", B_), NULL);
	check(fmt("/kubepods/guaranteed/pod%s", B), NULL);
	check(fmt("/other/burstable/pod%s", B), NULL);
	check(fmt("/kubepods/burstable/pod%s/%.12s", B, C4),
	      &(struct want){MCG_RT_NONE, NULL, B, MCG_QOS_BURSTABLE, NULL, NULL});
	assert_string_equal(mcg_runtime_name(MCG_RT_CRIO), "cri-o");
	assert_string_equal(mcg_qos_name(MCG_QOS_BESTEFFORT), "besteffort");
	assert_string_equal(mcg_qos_name((enum mcg_qos)99), "");
}

/* ---- the JSON reader ---- */

struct seen {
	char text[2048];
	int ends;
};

static int seen_cb(enum mcg__json_event ev, const char *const *keys, size_t depth,
		   const char *val, size_t vlen, void *data)
{
	struct seen *s = data;
	size_t i, o = strlen(s->text);

	if (ev == MCG__JSON_END) {
		s->ends++;
		return 0;
	}
	for (i = 0; i < depth; i++)
		o += (size_t)snprintf(s->text + o, sizeof(s->text) - o, "%s.", keys[i]);
	o += (size_t)snprintf(s->text + o, sizeof(s->text) - o, "=%s(%zu);", val, vlen);
	return 0;
}

static int scan(const char *doc, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	return mcg__json_scan(doc, strlen(doc), seen_cb, s);
}

static void test_json(void **state)
{
	struct seen s;
	char deep[200];
	int i;

	(void)state;
	assert_int_equal(scan("{\"a\":\"x\",\"b\":[\"y\",{\"c\":\"z\"}],\"n\":-1.5e3,\"t\":true,"
			      "\"f\":false,\"u\":null}",
			      &s),
			 0);
	assert_string_equal(s.text, "a.=x(1);b.[].=y(1);b.[].c.=z(1);");
	assert_int_equal(s.ends, 2);
	/* escapes decode: \", \\, \/, \n, \u00e9, a surrogate pair */
	assert_int_equal(scan("{\"k\\u0041\":\"q\\\"\\\\\\/\\n\\u00e9\\ud83d\\ude00\"}", &s), 0);
	assert_string_equal(s.text, "kA.=q\"\\/\n\xc3\xa9\xf0\x9f\x98\x80(11);");
	/* strict: what a runtime never writes is refused */
	assert_int_equal(scan("{\"a\":\"x\",}", &s), -EINVAL);
	assert_int_equal(scan("[1,]", &s), -EINVAL);
	assert_int_equal(scan("{\"a\":\"x\"", &s), -EINVAL);
	assert_int_equal(scan("{\"a\":\"x\"} x", &s), -EINVAL);
	assert_int_equal(scan("{a:1}", &s), -EINVAL);
	assert_int_equal(scan("{\"a\":\"\\u0000\"}", &s), -EINVAL); /* no NUL in a name */
	assert_int_equal(scan("{\"a\":\"\\ud800\"}", &s), -EINVAL);  /* a lone surrogate */
	assert_int_equal(scan("{\"a\":\"\\x\"}", &s), -EINVAL);
	assert_int_equal(scan("{\"a\":\"tab\there\"}", &s), -EINVAL);
	assert_int_equal(scan("{\"a\":01}", &s), -EINVAL);
	assert_int_equal(scan("{\"a\":1.}", &s), -EINVAL);
	assert_int_equal(scan("{\"a\":tru}", &s), -EINVAL);
	assert_int_equal(scan("", &s), -EINVAL);
	/* nesting is bounded: 32 keys deep (33 arrays) read, one more refused */
	for (i = 0; i < 33; i++) {
		deep[i] = '[';
		deep[33 + i] = ']';
	}
	deep[66] = '\0';
	assert_int_equal(scan(deep, &s), 0);
	memmove(deep + 1, deep, 67);
	deep[0] = '[';
	strcat(deep, "]");
	assert_int_equal(scan(deep, &s), -EINVAL);
}

/* crictl's answer: the exact namespace and name (--name is a pattern to crictl) */
static void test_crictl_parse(void **state)
{
	const char *j = "{\"items\":[{\"id\":\"a\",\"metadata\":{\"name\":\"web-10\",\"uid\":\"u10\","
			"\"namespace\":\"shop\",\"attempt\":0}},{\"id\":\"b\",\"metadata\":{\"name\":"
			"\"web-1\",\"uid\":\"u1\",\"namespace\":\"shop\"},\"state\":\"SANDBOX_READY\"}]}";
	char uid[MCG_POD_UID_MAX + 1];

	(void)state;
	assert_int_equal(mcg__crictl_pods_parse(j, strlen(j), "shop", "web-1", uid, sizeof(uid)), 1);
	assert_string_equal(uid, "u1");
	assert_int_equal(mcg__crictl_pods_parse(j, strlen(j), "shop", "web-10", uid, sizeof(uid)), 1);
	assert_string_equal(uid, "u10");
	assert_int_equal(mcg__crictl_pods_parse(j, strlen(j), "other", "web-1", uid, sizeof(uid)), 0);
	assert_int_equal(mcg__crictl_pods_parse(j, strlen(j), "shop", "web", uid, sizeof(uid)), 0);
	assert_int_equal(mcg__crictl_pods_parse("{\"items\":[]}", 12, "a", "b", uid, sizeof(uid)), 0);
	assert_int_equal(mcg__crictl_pods_parse("{\"items\":[", 10, "a", "b", uid, sizeof(uid)), -EINVAL);
	/* no crictl: said, not fatal */
	{
		char why[128] = "";

		assert_int_equal(mcg__crictl_pod_uid("/nonexistent/crictl", "a", "b", uid, sizeof(uid),
						     why, sizeof(why)),
				 -ENOENT);
		assert_non_null(strstr(why, "/nonexistent/crictl"));
	}
}

/* a crictl that never answers is killed at the bound, one that answers without end at its cap */
static void test_crictl_bounds(void **state)
{
	char dir[] = "/tmp/mcg-crictl-XXXXXX", sh_[128], why[128] = "";
	char uid[MCG_POD_UID_MAX + 1];
	struct timespec t0, t1;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sh_, sizeof(sh_), "%s/endless", dir);
	f = fopen(sh_, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\nexec cat /dev/zero\n", f);
	fclose(f);
	assert_int_equal(chmod(sh_, 0755), 0);
	assert_int_equal(mcg__crictl_pod_uid(sh_, "a", "b", uid, sizeof(uid), why, sizeof(why)),
			 -EFBIG);
	assert_non_null(strstr(why, "more than"));
	snprintf(sh_, sizeof(sh_), "%s/mute", dir);
	f = fopen(sh_, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\nexec sleep 60\n", f);
	fclose(f);
	assert_int_equal(chmod(sh_, 0755), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(mcg__crictl_pod_uid(sh_, "a", "b", uid, sizeof(uid), why, sizeof(why)),
			 -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_non_null(strstr(why, "no answer within"));
	/* killed at the 5 s bound, not after the 60 s it would sleep */
	assert_true(t1.tv_sec - t0.tv_sec < 30);
	assert_int_equal(fx_rmtree(dir), 0);
}

/* ---- the state files and the resolver, on a copy of the fixture ---- */

static char tmpl[] = "/tmp/mcg-names-test-XXXXXX";
static char state_root[300];

static void copy_fixture(void)
{
	char cmd[1024];

	assert_non_null(mkdtemp(tmpl));
	snprintf(cmd, sizeof(cmd), "cp -a '%s/.' '%s/' && chmod -R go-w '%s'", FIXTURE, tmpl, tmpl);
	assert_int_equal(system(cmd), 0);
	snprintf(state_root, sizeof(state_root), "%s/state", tmpl);
}

static void sh(const char *f, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *f, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, f);
	vsnprintf(cmd, sizeof(cmd), f, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

static void test_names_load(void **state)
{
	struct mcg_container_ref ref;
	struct mcg_names *n;
	const char *ns = NULL;
	size_t i;
	char all[4096] = "";

	(void)state;
	copy_fixture();
	assert_int_equal(mcg_names_load(state_root, &n), 0);
	assert_int_equal(mcg_container_from_path(fmt("/system.slice/docker-%s.scope", D1), &ref), 1);
	assert_string_equal(mcg_names_container(n, &ref), "web");
	assert_int_equal(mcg_container_from_path(fmt("/docker/%s", D2), &ref), 1);
	assert_string_equal(mcg_names_container(n, &ref), "db");
	assert_int_equal(mcg_container_from_path(fmt("/libpod_parent/libpod-%s", P2), &ref), 1);
	assert_string_equal(mcg_names_container(n, &ref), "queue");
	/* a bare CRI ID under cgroupfs is containerd's here; CRI-O's has its k8s name */
	assert_int_equal(mcg_container_from_path(fmt("/kubepods/burstable/pod%s/%s", U4, C4), &ref), 1);
	assert_string_equal(mcg_names_container(n, &ref), "nginx");
	assert_int_equal(mcg_container_from_path(fmt("/x/crio-%s.scope", C3), &ref), 1);
	assert_string_equal(mcg_names_container(n, &ref), "shipper");
	assert_int_equal(mcg_container_from_path(fmt("/docker/%s", C5), &ref), 1);
	assert_null(mcg_names_container(n, &ref));
	/* pods: by the sandbox-uid annotation, or (old containerd) the cgroupsPath's pod */
	assert_string_equal(mcg_names_pod(n, B, &ns), "api-7d9f");
	assert_string_equal(ns, "shop");
	assert_string_equal(mcg_names_pod(n, G, &ns), "etcd-node1");
	assert_string_equal(ns, "kube-system");
	assert_string_equal(mcg_names_pod(n, E, &ns), "logger");
	assert_string_equal(ns, "monitoring");
	assert_null(mcg_names_pod(n, "5a5a5a5a-0000-4000-8000-000000000005", &ns));
	for (i = 0; i < mcg_names_count(n); i++) {
		strcat(all, mcg_names_spec(n, i));
		strcat(all, " ");
	}
	assert_non_null(strstr(all, "docker:web "));
	assert_non_null(strstr(all, "docker:db "));
	assert_non_null(strstr(all, "podman:cache "));
	assert_non_null(strstr(all, "podman:queue "));
	assert_non_null(strstr(all, "pod:shop/api-7d9f "));
	assert_non_null(strstr(all, "pod:shop/web-0 "));
	assert_non_null(strstr(all, "pod:monitoring/logger "));
	/* as the views print them: ctr's own ID, a Kubernetes container's name, CRI-O's too */
	assert_non_null(strstr(all, "containerd:redis "));
	assert_non_null(strstr(all, "containerd:api "));
	assert_non_null(strstr(all, fmt("containerd:%.12s ", S2))); /* a sandbox has no name */
	assert_non_null(strstr(all, "cri-o:shipper "));
	assert_null(strstr(all, "k8s_shipper")); /* CRI-O's container is not podman's */
	assert_null(mcg_names_spec(n, i));
	mcg_names_free(n);

	/* untrusted state is as if absent: writable by others, a symlink, not a regular file */
	sh("chmod o+w '%s/var/lib/docker/containers/%s/config.v2.json'", state_root, D1);
	sh("cd '%s/var/lib/docker/containers/%s' && mv config.v2.json real.json && "
	   "ln -s real.json config.v2.json",
	   state_root, D2);
	sh("chmod g+w '%s/var/lib/containers/storage/overlay-containers%s'", state_root, "");
	assert_int_equal(mcg_names_load(state_root, &n), 0);
	assert_int_equal(mcg_container_from_path(fmt("/system.slice/docker-%s.scope", D1), &ref), 1);
	assert_null(mcg_names_container(n, &ref));
	assert_int_equal(mcg_container_from_path(fmt("/docker/%s", D2), &ref), 1);
	assert_null(mcg_names_container(n, &ref));
	assert_int_equal(mcg_container_from_path(fmt("/libpod_parent/libpod-%s", P2), &ref), 1);
	assert_null(mcg_names_container(n, &ref));
	assert_null(mcg_names_pod(n, E, &ns));
	assert_string_equal(mcg_names_pod(n, B, &ns), "api-7d9f"); /* containerd's still read */
	mcg_names_free(n);
	/* no state at all: nothing, and no error */
	assert_int_equal(mcg_names_load("/nonexistent-mcg-state", &n), 0);
	assert_int_equal(mcg_names_count(n), 0);
	mcg_names_free(n);
	assert_int_equal(fx_rmtree(tmpl), 0);
	strcpy(tmpl, "/tmp/mcg-names-test-XXXXXX");
}

static void resolves(struct mcg_ctx *ctx, const char *spec, const char *want)
{
	char why[256] = "", *cg = NULL;
	struct mcg_group *g;
	int r = mcg_container_resolve(ctx, state_root, spec, &cg, why, sizeof(why));

	if (r != 0)
		fail_msg("%s: %d (%s)", spec, r, why);
	assert_string_equal(cg, want);
	free(cg);
	/* and through the hook, as mcgctl's CGROUP arguments are opened */
	assert_int_equal(mcg_group_open(ctx, spec, &g), 0);
	assert_string_equal(mcg_group_path(g), want);
	mcg_group_close(g);
}

static void refused(struct mcg_ctx *ctx, const char *spec, int err, const char *why_has)
{
	char why[256] = "", *cg = NULL;
	struct mcg_group *g = NULL;

	assert_int_equal(mcg_container_resolve(ctx, state_root, spec, &cg, why, sizeof(why)), err);
	assert_null(cg);
	if (!strstr(why, why_has))
		fail_msg("%s: '%s' lacks '%s'", spec, why, why_has);
	assert_int_equal(mcg_group_open(ctx, spec, &g), err);
	assert_null(g);
}

static void test_resolve(void **state)
{
	struct mcg_container_resolver_opts o = {0};
	struct mcg_ctx *ctx;
	char root[400], prefix[16], *p;

	(void)state;
	copy_fixture();
	snprintf(root, sizeof(root), "%s/cgroup", tmpl);
	assert_int_equal(mcg_ctx_new_root(root, 2, NULL, NULL, &ctx), 0);
	o.state_root = state_root;
	mcg_ctx_set_resolver(ctx, mcg_container_resolver, &o);

	resolves(ctx, "docker:web", fmt("/system.slice/docker-%s.scope", D1));
	resolves(ctx, "docker:db", fmt("/docker/%s", D2));
	snprintf(prefix, sizeof(prefix), "%.12s", D2);
	resolves(ctx, fmt("docker:%s", prefix), fmt("/docker/%s", D2));
	resolves(ctx, fmt("docker:%s", D1), fmt("/system.slice/docker-%s.scope", D1));
	resolves(ctx, "podman:cache", fmt("/machine.slice/libpod-%s.scope", P1));
	resolves(ctx, "podman:queue", fmt("/libpod_parent/libpod-%s", P2));
	snprintf(prefix, sizeof(prefix), "%.5s", P2);
	resolves(ctx, fmt("podman:%s", prefix), fmt("/libpod_parent/libpod-%s", P2));
	/* containerd: the task's cgroupsPath, systemd's slice:prefix:name spelled out, or a path */
	resolves(ctx, fmt("containerd:k8s.io/%s", C2),
		 fmt("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/"
		     "cri-containerd-%s.scope",
		     B_, C2));
	resolves(ctx, fmt("containerd:k8s.io/%s", C4), fmt("/kubepods/burstable/pod%s/%s", U4, C4));
	resolves(ctx, "containerd:default/redis", "/default/redis");
	resolves(ctx, "containerd:default/web2", "/machine.slice/machine-app.slice/ctr-web2.scope");
	/* the forms the views print: a Kubernetes container's name, ctr's ID, an ID prefix */
	resolves(ctx, "containerd:api",
		 fmt("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/"
		     "cri-containerd-%s.scope",
		     B_, C2));
	resolves(ctx, "containerd:nginx", fmt("/kubepods/burstable/pod%s/%s", U4, C4));
	resolves(ctx, "containerd:redis", "/default/redis");
	resolves(ctx, "containerd:web2", "/machine.slice/machine-app.slice/ctr-web2.scope");
	resolves(ctx, fmt("containerd:%.12s", S2),
		 fmt("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/"
		     "cri-containerd-%s.scope",
		     B_, S2));
	p = fmt("/kubepods.slice/kubepods-besteffort.slice/"
		"kubepods-besteffort-pod0e0e0e0e_1111_4222_8333_444455556666.slice/crio-%s.scope",
		C3);
	resolves(ctx, "cri-o:shipper", p);
	resolves(ctx, "crio:shipper", p);
	resolves(ctx, fmt("cri-o:%.7s", C3), p);
	resolves(ctx, fmt("cri:%.12s", C5), fmt("/kubepods/pod5a5a5a5a-0000-4000-8000-000000000005/%s", C5));
	resolves(ctx, fmt("cri:%.12s", C4), fmt("/kubepods/burstable/pod%s/%s", U4, C4));
	/* a CRI container with no readable bundle: its cgroup names its ID */
	resolves(ctx, fmt("containerd:k8s.io/%s", C5), fmt("/kubepods/pod5a5a5a5a-0000-4000-8000-000000000005/%s", C5));
	/* pods by namespace/name, by UID (either spelling), each QoS class and driver */
	resolves(ctx, "pod:shop/api-7d9f",
		 fmt("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice", B_));
	resolves(ctx, fmt("pod:%s", B_),
		 fmt("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice", B_));
	resolves(ctx, "pod:kube-system/etcd-node1", fmt("/kubepods.slice/kubepods-pod%s.slice", G));
	resolves(ctx, "pod:monitoring/logger",
		 "/kubepods.slice/kubepods-besteffort.slice/"
		 "kubepods-besteffort-pod0e0e0e0e_1111_4222_8333_444455556666.slice");
	resolves(ctx, "pod:shop/web-0", fmt("/kubepods/burstable/pod%s", U4));
	resolves(ctx, "pod:5a5a5a5a-0000-4000-8000-000000000005",
		 "/kubepods/pod5a5a5a5a-0000-4000-8000-000000000005");

	/* what does not resolve says what was looked at */
	refused(ctx, "docker:nosuch", -ENOENT, "/var/lib/docker/containers: 2 containers");
	refused(ctx, "podman:nosuch", -ENOENT, "overlay-containers: 3 containers");
	refused(ctx, "docker:", -EINVAL, "no name after 'docker:'");
	refused(ctx, "containerd:a/b/c", -EINVAL, "not containerd:NAMESPACE/ID");
	refused(ctx, "containerd:nosuch", -ENOENT, "no containerd container named 'nosuch'");
	refused(ctx, "cri-o:nosuch", -ENOENT, "overlay-containers: 3 containers");
	refused(ctx, "cri:nosuch", -ENOENT, "no cri container named 'nosuch'");
	refused(ctx, fmt("cri:%.12s", D1), -ENOENT, "no cri container"); /* docker's is no CRI one */
	refused(ctx, "containerd:default/nosuch", -ENOENT, "no containerd task default/nosuch");
	refused(ctx, "pod:shop/nosuch", -ENOENT, "no pod shop/nosuch");
	refused(ctx, "pod:5a5a5a5a-0000-4000-8000-00000000000f", -ENOENT, "no cgroup under");
	/* a name whose container has no cgroup now */
	sh("rm -r '%s/cgroup/docker/%s'", tmpl, D2);
	refused(ctx, "docker:db", -ENOENT, "has no cgroup");
	mcg_ctx_free(ctx);
	assert_int_equal(fx_rmtree(tmpl), 0);
	strcpy(tmpl, "/tmp/mcg-names-test-XXXXXX");
}

/* Two containers whose IDs share a prefix: the prefix is refused as ambiguous, a longer one not. */
static void test_ambiguous(void **state)
{
	struct mcg_ctx *ctx;
	char root[400], a[65], b[65], why[256] = "", *cg = NULL;

	(void)state;
	copy_fixture();
	memset(a, 'a', 64);
	a[64] = '\0';
	memcpy(b, a, 65);
	b[63] = 'b';
	sh("cd '%s/cgroup/docker' && mkdir %s", tmpl, a);
	sh("cd '%s/cgroup/docker' && mkdir %s", tmpl, b);
	snprintf(root, sizeof(root), "%s/cgroup", tmpl);
	assert_int_equal(mcg_ctx_new_root(root, 2, NULL, NULL, &ctx), 0);
	assert_int_equal(mcg_container_resolve(ctx, state_root, "docker:aaaa", &cg, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "ambiguous"));
	assert_int_equal(mcg_container_resolve(ctx, state_root, fmt("docker:%s", b), &cg, why,
					       sizeof(why)),
			 0);
	assert_string_equal(cg, fmt("/docker/%s", b));
	free(cg);
	mcg_ctx_free(ctx);

	/*
	 * A second Kubernetes container named "api" (another pod): containerd:api is
	 * refused, and the views name each by its ID prefix, which resolves to it.
	 */
	{
		const char *t = "run/containerd/io.containerd.runtime.v2.task/k8s.io";
		const char *u = "9c9c9c9c-0000-4000-8000-000000000009";
		struct mcg_names *n;
		char spec[128], *path;

		memset(a, 'c', 64);
		sh("mkdir -p '%s/%s/%s' '%s/cgroup/kubepods/pod%s/%s'", state_root, t, a, tmpl, u, a);
		sh("printf '{\"linux\":{\"cgroupsPath\":\"/kubepods/pod%s/%s\"},\"annotations\":"
		   "{\"io.kubernetes.cri.sandbox-name\":\"api-7d9f\",\"io.kubernetes.cri.sandbox-"
		   "namespace\":\"shop\",\"io.kubernetes.cri.sandbox-uid\":\"%s\",\"io.kubernetes"
		   ".cri.container-name\":\"api\"}}' >'%s/%s/%s/config.json' && chmod -R go-w '%s'",
		   u, a, u, state_root, t, a, tmpl);
		assert_int_equal(mcg_ctx_new_root(root, 2, NULL, NULL, &ctx), 0);
		assert_int_equal(mcg_container_resolve(ctx, state_root, "containerd:api", &cg, why,
						       sizeof(why)),
				 -EINVAL);
		assert_non_null(strstr(why, "more than one containerd container is named 'api'"));
		assert_int_equal(mcg_names_load(state_root, &n), 0);
		path = fmt("/kubepods/pod%s/%s", u, a);
		assert_int_equal(mcg_names_owner_spec(n, path, spec, sizeof(spec)), 2);
		assert_string_equal(spec, fmt("containerd:%.12s", a));
		assert_int_equal(mcg_container_resolve(ctx, state_root, spec, &cg, why, sizeof(why)), 0);
		assert_string_equal(cg, path);
		free(cg);
		/* a pod made again under its name: the name gives way to the UID in views... */
		assert_true(mcg_names_pod_spec(n, u, spec, sizeof(spec)));
		assert_string_equal(spec, u);
		assert_true(mcg_names_pod_spec(n, U4, spec, sizeof(spec)));
		assert_string_equal(spec, "shop/web-0");
		mcg_names_free(n);
		/* ...and both have a cgroup: pod:shop/api-7d9f is refused as ambiguous */
		assert_int_equal(mcg_container_resolve(ctx, state_root, "pod:shop/api-7d9f", &cg, why,
						       sizeof(why)),
				 -EINVAL);
		assert_non_null(strstr(why, "more than one pod"));
		/* once the old one's cgroup is gone, the name is the live pod's */
		sh("rm -r '%s/cgroup/kubepods/pod%s'", tmpl, u);
		assert_int_equal(mcg_container_resolve(ctx, state_root, "pod:shop/api-7d9f", &cg, why,
						       sizeof(why)),
				 0);
		assert_string_equal(cg, fmt("/kubepods.slice/kubepods-burstable.slice/"
					    "kubepods-burstable-pod%s.slice",
					    B_));
		free(cg);
	}
	/* no resolver installed: the forms are plain (nonexistent) paths */
	assert_false(mcg_container_spec("web"));
	assert_false(mcg_container_spec("/docker/x"));
	assert_true(mcg_container_spec("pod:x"));
	assert_true(mcg_container_spec("cri-o:x"));
	assert_true(mcg_container_spec("cri:x"));
	mcg_ctx_free(ctx);
	assert_int_equal(fx_rmtree(tmpl), 0);
	strcpy(tmpl, "/tmp/mcg-names-test-XXXXXX");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_runtimes), cmocka_unit_test(test_paths_kube),
		cmocka_unit_test(test_json),	       cmocka_unit_test(test_crictl_parse),
		cmocka_unit_test(test_crictl_bounds),
		cmocka_unit_test(test_names_load),
		cmocka_unit_test(test_resolve),	       cmocka_unit_test(test_ambiguous),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
