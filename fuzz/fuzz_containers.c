/* fuzz_containers.c: runtimes' state files and crictl's pod list (docker's config.v2.json, podman's containers.json, containerd's and CRI-O's OCI config.json) through mcg_names_load and the JSON reader, and a cgroup path through mcg_container_from_path. */
#include "fuzz.h"

/* the sections of one input, NUL-separated */
enum { S_DOCKER, S_PODMAN, S_CONTAINERD, S_CRIO, S_PATH, S__COUNT };

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
static char state[4096], docker[4096], podman[4096], containerd[4096], crio[4096];

static int json_cb(enum mcg__json_event ev, const char *const *keys, size_t depth,
		   const char *val, size_t vlen, void *data)
{
	size_t i;

	(void)data;
	FZ_CHECK(depth <= MCG__JSON_DEPTH_MAX, "depth %zu", depth);
	for (i = 0; i < depth; i++)
		FZ_CHECK(strlen(keys[i]) <= MCG__JSON_KEY_MAX, "key of %zu bytes", strlen(keys[i]));
	if (ev == MCG__JSON_STRING)
		FZ_CHECK(strlen(val) == vlen, "a string of %zu bytes holds a NUL", vlen);
	return 0;
}

static bool hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static void check_ref(const char *path, const struct mcg_container_ref *r)
{
	size_t n = strlen(path), u = strlen(r->pod_uid);

	if (r->runtime != MCG_RT_NONE) {
		FZ_CHECK(strlen(r->id) == MCG_CONTAINER_ID_LEN && hex(r->id, MCG_CONTAINER_ID_LEN),
			 "container ID '%s'", r->id);
		FZ_CHECK(r->id_end > 0 && r->id_end <= n && (path[r->id_end] == '/' || !path[r->id_end]),
			 "the container's cgroup ends at %zu of '%s'", r->id_end, path);
		FZ_CHECK(strstr(path, r->id) && strstr(path, r->id) < path + r->id_end,
			 "ID not in its cgroup's path");
	} else {
		FZ_CHECK(!r->id[0], "an ID without a runtime");
	}
	if (u) {
		FZ_CHECK(u == 32 || u == 36, "pod UID '%s'", r->pod_uid);
		FZ_CHECK(r->qos != MCG_QOS_NONE, "a pod without a QoS class");
		FZ_CHECK(r->pod_end > 0 && r->pod_end <= n &&
				 (path[r->pod_end] == '/' || !path[r->pod_end]),
			 "the pod's cgroup ends at %zu", r->pod_end);
		FZ_CHECK(r->runtime == MCG_RT_NONE || r->pod_end < r->id_end, "container above its pod");
	} else {
		FZ_CHECK(r->qos == MCG_QOS_NONE, "a QoS class without a pod");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *sec[S__COUNT];
	size_t len[S__COUNT], i;
	struct mcg_container_ref ref;
	struct mcg_names *n;
	const char *name;
	int r;

	if (size > 65536)
		return -1;
	fz_sections(data, size, sec, len, S__COUNT);
	for (i = 0; i < S_PATH; i++) {
		r = mcg__json_scan(sec[i] ? sec[i] : "", len[i], json_cb, NULL);
		FZ_CHECK(r == 0 || r == -EINVAL, "mcg__json_scan: %d", r);
	}
	{
		char uid[MCG_POD_UID_MAX + 1];

		r = mcg__crictl_pods_parse(sec[S_PODMAN] ? sec[S_PODMAN] : "", len[S_PODMAN], "ns",
					   "name", uid, sizeof(uid));
		FZ_CHECK(r == 0 || r == 1 || r == -EINVAL, "mcg__crictl_pods_parse: %d", r);
		FZ_CHECK(r != 1 || strlen(uid) <= MCG_POD_UID_MAX, "UID too long");
	}
	fz_put(docker, "config.v2.json", sec[S_DOCKER], len[S_DOCKER]);
	fz_put(podman, "containers.json", sec[S_PODMAN], len[S_PODMAN]);
	fz_put(containerd, "config.json", sec[S_CONTAINERD], len[S_CONTAINERD]);
	fz_put(crio, "config.json", sec[S_CRIO], len[S_CRIO]);
	r = mcg_names_load(state, &n);
	FZ_CHECK(r == 0, "mcg_names_load: %d", r);
	/* a name memcgctl keeps prints as it is: no control characters */
	for (i = 0; i < mcg_names_count(n); i++) {
		const char *s = mcg_names_spec(n, i), *c;

		FZ_CHECK(mcg_container_spec(s), "spec '%s' is no container form", s);
		for (c = s; *c; c++)
			FZ_CHECK((unsigned char)*c >= 0x20 && *c != 0x7f, "a control byte in '%s'", s);
	}
	if (sec[S_PATH]) {
		r = mcg_container_from_path(sec[S_PATH], &ref);
		FZ_CHECK(r == 0 || r == 1, "mcg_container_from_path: %d", r);
		if (r)
			check_ref(sec[S_PATH], &ref);
		r = mcg_names_owner(n, sec[S_PATH], &ref, &name);
		FZ_CHECK(r == 0 || r == 1, "mcg_names_owner: %d", r);
	}
	mcg_names_free(n);
	fz_free_sections(sec, S__COUNT);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_mkdir("state/var/lib/docker/containers/" ID, docker, sizeof(docker));
	fz_mkdir("state/var/lib/containers/storage/overlay-containers/" ID "/userdata", crio,
		 sizeof(crio));
	fz_mkdir("state/var/lib/containers/storage/overlay-containers", podman, sizeof(podman));
	fz_mkdir("state/run/containerd/io.containerd.runtime.v2.task/k8s.io/" ID, containerd,
		 sizeof(containerd));
	fz_mkdir("state", state, sizeof(state));
	return 0;
}
