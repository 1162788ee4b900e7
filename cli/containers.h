/* containers.h: containers and pods in memcgctl's messages and views: docker:/podman:/containerd:/pod: arguments that do not resolve, and a cgroup's CONTAINER and POD. */
#ifndef MEMCGCTL_CONTAINERS_H
#define MEMCGCTL_CONTAINERS_H

#include "memcgctl.h"

#include <stdio.h>

/* Where the runtimes' state is read: MEMCGCTL_STATE_ROOT (a fixture's tree in tests), else "/". */
const char *cli_state_root(void);

/*
 * Open a docker:, podman:, containerd: or pod: SPEC; when it does not resolve,
 * "cannot resolve 'docker:web': no docker container named 'web' ... (what was
 * read)" and -ENOENT or -EINVAL (status 64).
 */
int cli_open_container(struct cli *cli, const char *spec, struct mcg_group **ret);

/*
 * The container that owns the cgroup at PATH, for a view: "docker:web" (its
 * runtime's name, or its Kubernetes container name) or "docker:3f4e5d6c7b8a"
 * (12 digits of its ID) when the state has no name; false for none. The node's
 * names are read at the first call, and again when asked 10 s after the last read.
 */
bool cli_container_of(const char *path, char *buf, size_t len);
/* The pod: "NAMESPACE/NAME", or its UID when the state has no name; false for none. */
bool cli_pod_of(const char *path, char *buf, size_t len);
/*
 * show's lines for the container and the pod that own PATH (none: nothing):
 * "container docker:web ID" and "pod shop/api UID QOS"; in JSON the objects
 * "container" {runtime, id, name} and "pod" {uid, namespace, name, qos}.
 */
void cli_show_owner_text(const char *path);
void cli_show_owner_json(FILE *f, const char *path);
/*
 * export's labels of the container and pod that own PATH appended to LABELS
 * (mcg_om_cgroup_labels'): ,container="web" (12 digits of its ID when the
 * state has no name), ,pod="api-7d9f" (its UID
 * when the state has no name) and ,namespace="shop". Returns the new string
 * (LABELS as it was when memory runs out). The node's names are read again
 * for a cgroup first seen 10 s after they were last read.
 */
char *cli_om_container_labels(char *labels, const char *path);
/*
 * The name the recorder stores for the cgroup at PATH (the store's display
 * name, memcgctl-record(8)): the container that owns it as cli_container_of()
 * names it ("docker:web"), else for a pod's own cgroup "pod:NAMESPACE/NAME",
 * else its systemd unit (CTX's). 0 for none, and while the owner's name is not
 * known: a container whose runtime has not yet written its state is stored
 * without a name (the writer asks again at the next key frame) rather than
 * with its ID for good; the names are read again for it once a second at most.
 * A unit whose name reads as a container's or a pod's ("docker:x.service") is
 * not stored, so that a replay can tell them apart.
 */
size_t cli_record_name(struct mcg_ctx *ctx, const char *path, char *buf, size_t len);
/*
 * --replay's CONTAINER and POD of row I of a recorded snapshot S, from REC
 * (the frame's recorded names per row; NULL: none), never from the node's
 * state now: a container's recorded name ("docker:web", its own row's or,
 * for a sub-cgroup, the nearest ancestor's within the container), else
 * RUNTIME:12 digits of the ID its path holds; the pod's recorded name
 * ("shop/api", from the pod's own cgroup), else its UID from the path.
 * False for none.
 */
bool cli_replay_container(const struct mcg_snapshot *s, const char *const *rec, size_t i,
			  char *buf, size_t len);
bool cli_replay_pod(const struct mcg_snapshot *s, const char *const *rec, size_t i, char *buf,
		    size_t len);
/* Every name a CGROUP argument may give ("docker:web", "pod:shop/api"), for completion. */
void cli_container_specs(void (*fn)(const char *spec, void *ud), void *ud);

#endif
