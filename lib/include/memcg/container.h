/* memcg/container.h: containers and Kubernetes pods: who a cgroup path belongs to, their names from the node's local state, and names as CGROUP arguments. */
#ifndef MEMCG_CONTAINER_H
#define MEMCG_CONTAINER_H

#ifndef MEMCG_H
#error "include <memcg.h>, not <memcg/container.h>"
#endif

/* The runtime a container cgroup's name says started it. */
enum mcg_runtime {
	MCG_RT_NONE,
	MCG_RT_DOCKER,	   /* docker-ID.scope, /docker/ID */
	MCG_RT_PODMAN,	   /* libpod-ID.scope, /libpod_parent/libpod-ID */
	MCG_RT_CONTAINERD, /* cri-containerd-ID.scope, or a containerd state directory */
	MCG_RT_CRIO,	   /* crio-ID.scope, crio-ID */
	MCG_RT_CRI,	   /* /kubepods/QOS/podUID/ID: a CRI runtime the path does not name */
};

/* A Kubernetes pod's QoS class, from its cgroup's place under kubepods. */
enum mcg_qos {
	MCG_QOS_NONE,
	MCG_QOS_GUARANTEED, /* kubepods-podUID.slice, /kubepods/podUID: no QoS level */
	MCG_QOS_BURSTABLE,
	MCG_QOS_BESTEFFORT,
};

#define MCG_CONTAINER_ID_LEN 64 /* docker's, podman's, containerd's and CRI-O's: 64 hex */
#define MCG_POD_UID_MAX 36	/* 8-4-4-4-12; a static pod's is 32 hex (a config hash) */

/*
 * Who the cgroup at a path belongs to, by the names runtimes and the kubelet
 * give cgroups under the systemd and the cgroupfs drivers. A sub-cgroup of a
 * container (podman's split "container", a delegated tree) belongs to it.
 */
struct mcg_container_ref {
	enum mcg_runtime runtime;		/* MCG_RT_NONE: no container on the path */
	char id[MCG_CONTAINER_ID_LEN + 1];	/* "" when none */
	size_t id_end;				/* the container's cgroup is PATH[0..id_end) */
	char pod_uid[MCG_POD_UID_MAX + 1];	/* with '-', as the API server has it; "" outside a pod */
	size_t pod_end;				/* the pod's cgroup is PATH[0..pod_end) */
	enum mcg_qos qos;			/* MCG_QOS_NONE outside a pod */
};

/*
 * Parse PATH ("/system.slice/docker-ID.scope/sub", "/kubepods/burstable/podUID/ID")
 * into *RET. Returns 1 when PATH is at or below a container or a pod, 0 when
 * not (*RET cleared). Pure: the path alone; a conmon cgroup is no container.
 */
MCG_EXPORT int mcg_container_from_path(const char *path, struct mcg_container_ref *ret);
/* "docker", "podman", "containerd", "cri-o", "cri"; "" for MCG_RT_NONE. */
MCG_EXPORT const char *mcg_runtime_name(enum mcg_runtime rt);
/* "guaranteed", "burstable", "besteffort"; "" for MCG_QOS_NONE. */
MCG_EXPORT const char *mcg_qos_name(enum mcg_qos qos);

/* ---- names from the node's local state -------------------------------- */

/*
 * The container and pod names a node has, read once from its runtimes' state
 * files (docker's containers/ID/config.v2.json, podman's containers.json, the
 * OCI bundles' config.json of containerd and CRI-O with their Kubernetes
 * annotations) under STATE_ROOT ("/" on the host; a fixture's tree in tests).
 * Only regular files owned by the effective user that nobody else may write,
 * in directories of the same, are read; anything else is skipped as if absent.
 */
struct mcg_names;

MCG_EXPORT int mcg_names_load(const char *state_root, struct mcg_names **ret);
MCG_EXPORT void mcg_names_free(struct mcg_names *n);

/* The name of the container REF names ("web", "k8s.io/ID"'s container name), or NULL. */
MCG_EXPORT const char *mcg_names_container(const struct mcg_names *n,
					   const struct mcg_container_ref *ref);
/*
 * Who owns the cgroup at PATH: mcg_container_from_path(), with the runtime the
 * state names for a bare CRI ID (containerd or CRI-O), else a containerd task
 * whose cgroupsPath is PATH or an ancestor of it ("/default/redis" of ctr).
 * 1 with *RET and the container's name in *RET_NAME (NULL: none known), or 0.
 */
MCG_EXPORT int mcg_names_owner(const struct mcg_names *n, const char *path,
			       struct mcg_container_ref *ret, const char **ret_name);
/* The pod of UID: its namespace in *RET_NS and its name, or NULL. */
MCG_EXPORT const char *mcg_names_pod(const struct mcg_names *n, const char *uid,
				     const char **ret_ns);

/*
 * The name a view prints for the container that owns PATH, in the form a
 * CGROUP argument takes back to that container (mcg_container_resolve):
 * "RUNTIME:NAME" where no other container of the runtime has that name,
 * ctr's own ID ("containerd:redis"), else the shortest ID prefix of 12 digits
 * or more that is its own ("containerd:474f7b754b26"), else
 * containerd:NAMESPACE/ID. 2 when the state names the container, 1 when only
 * its path does ("cri:88f6811ab5d8", 12 digits), 0 when no container owns PATH.
 */
MCG_EXPORT int mcg_names_owner_spec(const struct mcg_names *n, const char *path, char *buf,
				    size_t len);
/*
 * The pod of UID as a view names it after "pod:": "NAMESPACE/NAME", or its
 * UID where the state has no name for it or two pods of that name (one made
 * again under it). False only for no UID.
 */
MCG_EXPORT bool mcg_names_pod_spec(const struct mcg_names *n, const char *uid, char *buf,
				   size_t len);

/* One name a CGROUP argument may give, for completion, as the views print it: "docker:web", "pod:shop/api". */
MCG_EXPORT size_t mcg_names_count(const struct mcg_names *n);
MCG_EXPORT const char *mcg_names_spec(const struct mcg_names *n, size_t i);

/*
 * What the container resolver reads: STATE_ROOT as mcg_names_load() takes it,
 * and CRICTL (a command run without a shell, found on PATH; NULL: never) asked
 * for a pod NAMESPACE/NAME the state files do not name.
 */
struct mcg_container_resolver_opts {
	const char *state_root;
	const char *crictl;
	char why[256]; /* after a failed resolution: what was looked at */
};

/*
 * Is SPEC a container or pod name form ("docker:", "podman:", "containerd:",
 * "cri-o:" or "crio:", "cri:", "pod:")? Pure.
 */
MCG_EXPORT bool mcg_container_spec(const char *spec);

/*
 * Resolve SPEC (docker:NAME|IDPREFIX, podman:NAME|IDPREFIX, containerd:NS/ID,
 * containerd:NAME|ID|IDPREFIX, cri-o:NAME|IDPREFIX, cri:IDPREFIX, pod:NS/NAME,
 * pod:UID) to its cgroup in CTX's hierarchy, malloc'd into *RET. A NAME is
 * the runtime's (docker, podman) or the Kubernetes container's; an ID ctr's
 * own ("redis", in any namespace). -ENOENT (no such name, or no cgroup of it
 * now), -EINVAL (malformed, a name or ID prefix more than one container
 * has), with WHY saying what was looked at.
 */
MCG_EXPORT int mcg_container_resolve(const struct mcg_ctx *ctx, const char *state_root,
				     const char *spec, char **ret, char *why, size_t whylen);
/* mcg_container_resolve() with O's state root and crictl. */
MCG_EXPORT int mcg_container_resolve_opts(const struct mcg_ctx *ctx,
					  const struct mcg_container_resolver_opts *o,
					  const char *spec, char **ret, char *why, size_t whylen);
/* The resolver (mcg_resolve_fn) of those forms: 0 for any other SPEC; USERDATA: the opts. */
MCG_EXPORT int mcg_container_resolver(const struct mcg_ctx *ctx, const char *spec, char **ret,
				      void *userdata);

#endif
