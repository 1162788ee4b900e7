#!/bin/sh
# container-podman (issue 30): a real rootful podman container under systemd on pure cgroup v2,
# as podman runs it by default there: the systemd cgroup manager (libpod-ID.scope under
# machine.slice), crun, the overlay storage driver, from a busybox image imported here.
# memcgctl resolves podman:NAME and an ID prefix to the cgroup the container's task is in
# (crun's child "container" of podman's libpod-ID.scope), reads the limit of podman run
# --memory, sets a lower one through podman:NAME that memory.max then holds (a daemon-reload
# too), shows the container in list and top by name, and refuses a name podman does not
# have (64).
set -eu
. "$MCG_TESTLIB"
require_systemd
require_cmd podman crun conmon
bb=$(command -v busybox || true)
[ -n "$bb" ] && ! ldd "$bb" >/dev/null 2>&1 || skip "no static busybox for the image (busybox-static)"

# The image has no kernel modules and no kmod: overlay (podman's storage driver; the cloud
# kernel builds it as a module) comes from the per-run disk (run-guest.sh). Without it
# c/storage would fall back to vfs, whose state (vfs-containers) memcgctl does not read.
if ! grep -qw overlay /proc/filesystems; then
	[ -f /mcg/modules/overlay.ko ] || skip "no overlay in this kernel and no /mcg/modules/overlay.ko"
	"$bb" insmod /mcg/modules/overlay.ko || fail "insmod overlay.ko failed"
fi
grep -qw overlay /proc/filesystems || fail "overlay not in /proc/filesystems after insmod"

ID="" IMG="" NAME_MADE=""
podman_cleanup() {
	pc_st=$?
	# only what this scenario made, by the IDs podman gave it (by its name where podman run
	# failed after it created the container)
	[ -z "$ID" ] || podman rm -f -t 0 "$ID" >/dev/null 2>&1
	[ -n "$ID" ] || [ -z "$NAME_MADE" ] || podman rm -f -t 0 --ignore "$NAME_MADE" >/dev/null 2>&1
	[ -z "$IMG" ] || podman rmi -f "$IMG" >/dev/null 2>&1
	return $pc_st
}
trap 'podman_cleanup; sd_cleanup' EXIT

mkdir -p "$MCG_TMP/root/bin"
cp "$bb" "$MCG_TMP/root/bin/busybox"
ln -s busybox "$MCG_TMP/root/bin/sh"
ln -s busybox "$MCG_TMP/root/bin/sleep"
tar -C "$MCG_TMP/root" -cf "$MCG_TMP/root.tar" .
t0=$(date +%s)
IMG=$(podman import -q "$MCG_TMP/root.tar" "localhost/$MCG_PREFIX:latest" 2>"$MCG_TMP/import.err") || {
	cat "$MCG_TMP/import.err" >&2
	fail "podman import"
}
IMG=${IMG#sha256:}
ok "podman import: image ${IMG%"${IMG#????????????}"} ($(($(date +%s) - t0)) s)"
state=/var/lib/containers/storage/overlay-containers/containers.json

name="$MCG_PREFIX-web"
t0=$(date +%s)
NAME_MADE=$name
ID=$(podman run -d --name "$name" --memory 100m --network none "$IMG" /bin/sleep 600 \
	2>"$MCG_TMP/run.err") || {
	cat "$MCG_TMP/run.err" >&2
	fail "podman run"
}
running() { [ "$(podman inspect --format '{{.State.Status}}' "$ID" 2>/dev/null)" = running ]; }
wait_for "container $name running" 60 running
ok "podman runs container ${ID%"${ID#????????????}"} ($(($(date +%s) - t0)) s)"
podman inspect --format '{{.State.Pid}} {{.State.CgroupPath}} {{.HostConfig.CgroupManager}} {{.OCIRuntime}} {{.Driver}}' \
	"$ID" >"$MCG_TMP/inspect.txt"
read -r pid cgpath mgr rt drv <"$MCG_TMP/inspect.txt"
say "podman inspect: pid $pid, CgroupPath $cgpath, manager $mgr, runtime $rt, driver $drv"
assert_eq "podman's cgroup manager" systemd "$mgr"
assert_eq "podman's storage driver" overlay "$drv"
[ -f "$state" ] || fail "no $state (podman's state is elsewhere)"
scg=/machine.slice/libpod-$ID.scope
assert_eq "podman's CgroupPath" "$scg" "$cgpath"
# crun runs the task in the scope's child "container" (run.oci.systemd.subgroup) and writes
# the limits there; the scope is delegated, holds no task, and systemd leaves it unlimited
ccg=$scg/container
assert_eq "the container's task's cgroup (/proc/$pid/cgroup)" "0::$ccg" "$(cat "/proc/$pid/cgroup")"
assert_eq "memory.max of $ccg (podman run --memory 100m)" $((100 * 1048576)) \
	"$(knob "$MCG_CGROOT$ccg" memory.max)"
assert_eq "memory.max of the scope" max "$(knob "$MCG_CGROOT$scg" memory.max)"
assert_eq "the scope's Delegate" yes "$(sd_prop "libpod-$ID.scope" Delegate)"

# by name, by a 12-digit ID prefix
"$MEMCGCTL" show --json "podman:$name" >"$MCG_TMP/show.json"
cp "$MCG_TMP/show.json" "$MCG_ARTIFACTS/show.json"
assert_eq "podman:NAME resolves" "$ccg" "$(json .cgroup <"$MCG_TMP/show.json")"
assert_eq "show names the container" "$name" "$(json .container.name <"$MCG_TMP/show.json")"
assert_eq "show gives its ID" "$ID" "$(json .container.id <"$MCG_TMP/show.json")"
assert_eq "show: runtime" podman "$(json .container.runtime <"$MCG_TMP/show.json")"
assert_eq "limit as the kernel has it" "$(knob "$MCG_CGROOT$ccg" memory.max)" \
	"$(json .limit_bytes <"$MCG_TMP/show.json")"
assert_eq "limit as podman set it" $((100 * 1048576)) "$(json .limit_bytes <"$MCG_TMP/show.json")"
short=$(printf %s "$ID" | cut -c1-12)
assert_eq "podman:IDPREFIX resolves" "$ccg" "$("$MEMCGCTL" show --json "podman:$short" | json .cgroup)"

# set-limit through the name: the kernel's file holds it; below a delegated scope the
# cgroup is the container's, not systemd's (no SetUnitProperties, nothing a reload rewrites)
assert_status "set-limit podman:$name 64M" 0 "$MEMCGCTL" set-limit "podman:$name" 64M
assert_eq "memory.max after set-limit" $((64 * 1048576)) "$(knob "$MCG_CGROOT$ccg" memory.max)"
systemctl daemon-reload
assert_eq "memory.max after a daemon-reload" $((64 * 1048576)) "$(knob "$MCG_CGROOT$ccg" memory.max)"
assert_eq "the scope's MemoryMax, untouched" infinity "$(sd_prop "libpod-$ID.scope" MemoryMax)"
assert_eq "show reads it back" $((64 * 1048576)) \
	"$("$MEMCGCTL" show --json "podman:$name" | json .limit_bytes)"
# podman's own view: the usage of the same cgroup; the limit it reports is the one it was
# given (HostConfig.Memory), not memory.max
pstats=$(podman stats --no-stream --format '{{.MemUsage}}' "$ID") || fail "podman stats"
[ -n "$pstats" ] || fail "podman stats gives no usage"
ok "podman stats: $pstats (kernel: memory.current $(knob "$MCG_CGROOT$ccg" memory.current)," \
	"memory.max $(knob "$MCG_CGROOT$ccg" memory.max); podman inspect: HostConfig.Memory" \
	"$(podman inspect --format '{{.HostConfig.Memory}}' "$ID"))"

# list and top show the container's name on its row
"$MEMCGCTL" list --json -o +container /machine.slice >"$MCG_TMP/list.json"
assert_eq "list: CONTAINER" "podman:$name" \
	"$(jq -r --arg p "$ccg" '.. | objects | select(.cgroup? == $p) | .container' "$MCG_TMP/list.json")"
"$MEMCGCTL" list -o +container /machine.slice >"$MCG_TMP/list.txt"
grep -q "podman:$name" "$MCG_TMP/list.txt" || { cat "$MCG_TMP/list.txt" >&2; fail "list text has no podman:$name"; }
ok "list -o +container shows podman:$name"
"$MEMCGCTL" top -b -n 1 -o +container /machine.slice >"$MCG_TMP/top.out" 2>&1 ||
	{ cat "$MCG_TMP/top.out" >&2; fail "top -b"; }
grep -q "podman:$name" "$MCG_TMP/top.out" || { cat "$MCG_TMP/top.out" >&2; fail "top -b has no podman:$name"; }
ok "top -b -n 1 shows podman:$name"

# a name podman does not have: 64, and the message says what was read
assert_status "unknown podman name" 64 "$MEMCGCTL" show "podman:$MCG_PREFIX-nosuch"
printf '%s\n' "$LAST_ERR" | grep -q "overlay-containers: [0-9]* container" ||
	fail "the message does not say what was read: $LAST_ERR"
ok "unknown name: $LAST_ERR"

# gone: once podman removed it, the name no longer resolves and the scope is gone
podman rm -f -t 0 "$ID" >/dev/null
ID="" NAME_MADE=""
[ ! -d "$MCG_CGROOT$scg" ] || fail "$scg still there after podman rm"
assert_status "removed container" 64 "$MEMCGCTL" show "podman:$name"
ok "removed: $LAST_ERR"
