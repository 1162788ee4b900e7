/* containers.c: the container and Kubernetes pod a cgroup path belongs to, from the names runtimes and the kubelet give cgroups (systemd and cgroupfs drivers); pure. */
#include "sys/sys.h"

#include <string.h>

/*
 * The conventions, as runtimes create them:
 *   docker    systemd: docker-ID.scope            cgroupfs: /docker/ID
 *   podman    systemd: libpod-ID.scope            cgroupfs: /libpod_parent/libpod-ID
 *             (libpod-conmon-ID.scope and .../conmon hold conmon, not the container)
 *   containerd (CRI, systemd): cri-containerd-ID.scope
 *   CRI-O     systemd: crio-ID.scope              cgroupfs: crio-ID (crio-conmon-ID: conmon)
 *   kubelet   systemd: kubepods[-QOS]-podUID.slice, UID with '_' for '-' (systemd's
 *             escaping of '-' in slice names), under kubepods[-QOS].slice
 *             cgroupfs: /kubepods[/QOS]/podUID, and a CRI container as a bare ID below
 * A guaranteed pod sits right under kubepods, without a QoS level. The kubelet
 * may be given another cgroup root (kind: /kubelet.slice/kubelet-kubepods.slice/
 * kubelet-kubepods-burstable.slice/...), so the slice names are matched by
 * what follows "kubepods-", and the cgroupfs ones by a "kubepods" component.
 */

static const char *const runtime_names[] = {
	[MCG_RT_NONE] = "",	      [MCG_RT_DOCKER] = "docker", [MCG_RT_PODMAN] = "podman",
	[MCG_RT_CONTAINERD] = "containerd", [MCG_RT_CRIO] = "cri-o",   [MCG_RT_CRI] = "cri",
};

static const char *const qos_names[] = {
	[MCG_QOS_NONE] = "",
	[MCG_QOS_GUARANTEED] = "guaranteed",
	[MCG_QOS_BURSTABLE] = "burstable",
	[MCG_QOS_BESTEFFORT] = "besteffort",
};

const char *mcg_runtime_name(enum mcg_runtime rt)
{
	return (unsigned)rt < sizeof(runtime_names) / sizeof(runtime_names[0]) ? runtime_names[rt]
										 : "";
}

const char *mcg_qos_name(enum mcg_qos qos)
{
	return (unsigned)qos < sizeof(qos_names) / sizeof(qos_names[0]) ? qos_names[qos] : "";
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* A container ID: exactly 64 lowercase hex digits (what all four runtimes make). */
static bool is_id(const char *s, size_t n)
{
	size_t i;

	if (n != MCG_CONTAINER_ID_LEN)
		return false;
	for (i = 0; i < n; i++)
		if (!is_hex(s[i]))
			return false;
	return true;
}

/*
 * A pod UID as the kubelet writes it into a name: 8-4-4-4-12 hex with SEP
 * ('-' in cgroupfs names, '_' in systemd's), or 32 hex (a static pod's, the
 * hash of its manifest). Copied into OUT with '-'.
 */
static bool take_uid(const char *s, size_t n, char sep, char *out)
{
	size_t i;

	if (n == 32) {
		for (i = 0; i < n; i++)
			if (!is_hex(s[i]))
				return false;
	} else if (n == 36) {
		for (i = 0; i < n; i++) {
			bool dash = i == 8 || i == 13 || i == 18 || i == 23;

			if (dash ? s[i] != sep : !is_hex(s[i]))
				return false;
		}
	} else {
		return false;
	}
	for (i = 0; i < n; i++)
		out[i] = s[i] == sep ? '-' : s[i];
	out[n] = '\0';
	return true;
}

static bool starts(const char *s, size_t n, const char *prefix, size_t *plen)
{
	size_t k = strlen(prefix);

	if (n < k || memcmp(s, prefix, k))
		return false;
	*plen = k;
	return true;
}

static bool ends(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

static bool is(const char *s, size_t n, const char *word)
{
	return n == strlen(word) && !memcmp(s, word, n);
}

/* "PREFIX-ID.scope" or "PREFIX-ID" (SCOPE_OPTIONAL): the ID's start, else NULL. */
static const char *prefixed_id(const char *s, size_t n, const char *prefix, bool bare_ok)
{
	size_t k;

	if (!starts(s, n, prefix, &k))
		return NULL;
	if (ends(s, n, ".scope") && is_id(s + k, n - k - 6))
		return s + k;
	if (bare_ok && is_id(s + k, n - k))
		return s + k;
	return NULL;
}

/* A systemd pod slice "...kubepods-[QOS-]podUID.slice": the QoS and the UID. */
static bool pod_slice(const char *s, size_t n, enum mcg_qos *qos, char *uid)
{
	static const struct {
		const char *infix;
		enum mcg_qos qos;
	} forms[] = {
		{"kubepods-pod", MCG_QOS_GUARANTEED},
		{"kubepods-burstable-pod", MCG_QOS_BURSTABLE},
		{"kubepods-besteffort-pod", MCG_QOS_BESTEFFORT},
	};
	size_t f;

	if (!ends(s, n, ".slice"))
		return false;
	for (f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		size_t k = strlen(forms[f].infix), at;

		/* the infix starts the name or follows a '-' (kubelet-kubepods-...) */
		for (at = 0; at + k <= n; at++) {
			if ((at == 0 || s[at - 1] == '-') && !memcmp(s + at, forms[f].infix, k) &&
			    take_uid(s + at + k, n - at - k - 6, '_', uid)) {
				*qos = forms[f].qos;
				return true;
			}
		}
	}
	return false;
}

int mcg_container_from_path(const char *path, struct mcg_container_ref *ret)
{
	struct mcg_container_ref r;
	const char *p = path, *prev = NULL, *prev2 = NULL;
	size_t prev_len = 0, prev2_len = 0;
	bool pod_just_before = false;

	memset(&r, 0, sizeof(r));
	memset(ret, 0, sizeof(*ret));
	if (!path)
		return 0;
	while (*p) {
		const char *s, *id = NULL;
		size_t n;
		enum mcg_runtime rt = MCG_RT_NONE;
		bool pod_here = false;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		s = p;
		p = strchrnul(p, '/');
		n = (size_t)(p - s);

		if (!r.pod_uid[0]) {
			if (pod_slice(s, n, &r.qos, r.pod_uid)) {
				pod_here = true;
			} else if (n > 3 && !memcmp(s, "pod", 3) && prev) {
				/* cgroupfs: /kubepods/podUID or /kubepods/QOS/podUID */
				enum mcg_qos q = MCG_QOS_NONE;

				if (is(prev, prev_len, "kubepods"))
					q = MCG_QOS_GUARANTEED;
				else if (prev2 && is(prev2, prev2_len, "kubepods") &&
					 is(prev, prev_len, "burstable"))
					q = MCG_QOS_BURSTABLE;
				else if (prev2 && is(prev2, prev2_len, "kubepods") &&
					 is(prev, prev_len, "besteffort"))
					q = MCG_QOS_BESTEFFORT;
				if (q != MCG_QOS_NONE && take_uid(s + 3, n - 3, '-', r.pod_uid)) {
					r.qos = q;
					pod_here = true;
				}
			}
			if (pod_here) {
				r.pod_end = (size_t)(p - path);
				prev2 = prev;
				prev2_len = prev_len;
				prev = s;
				prev_len = n;
				pod_just_before = true;
				continue;
			}
		}

		if ((id = prefixed_id(s, n, "docker-", false)))
			rt = MCG_RT_DOCKER;
		else if (!starts(s, n, "libpod-conmon-", &(size_t){0}) &&
			 (id = prefixed_id(s, n, "libpod-", true)))
			rt = MCG_RT_PODMAN;
		else if ((id = prefixed_id(s, n, "cri-containerd-", false)))
			rt = MCG_RT_CONTAINERD;
		else if (!starts(s, n, "crio-conmon-", &(size_t){0}) &&
			 (id = prefixed_id(s, n, "crio-", true)))
			rt = MCG_RT_CRIO;
		else if (prev && is(prev, prev_len, "docker") && is_id(s, n))
			rt = MCG_RT_DOCKER, id = s;
		else if (pod_just_before && is_id(s, n))
			rt = MCG_RT_CRI, id = s;
		if (rt != MCG_RT_NONE) {
			r.runtime = rt;
			memcpy(r.id, id, MCG_CONTAINER_ID_LEN);
			r.id[MCG_CONTAINER_ID_LEN] = '\0';
			r.id_end = (size_t)(p - path);
			break;
		}
		pod_just_before = false;
		prev2 = prev;
		prev2_len = prev_len;
		prev = s;
		prev_len = n;
	}
	if (r.runtime == MCG_RT_NONE && !r.pod_uid[0])
		return 0;
	*ret = r;
	return 1;
}
