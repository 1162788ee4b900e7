#!/bin/sh
# tiers: v1
# The OOM watcher where the cgroup filesystem is read-only, as systemd's ProtectControlGroups=
# mounts it for memcgctl-record.service, reproduced in a private mount namespace of its own
# (unshare -m --propagation private; the host's mounts are never touched). First the memory
# hierarchy itself read-only: writing cgroup.event_control fails (EROFS), and record says so
# once (not once per cgroup), naming a cgroup and the error, and its STATUS= (a socket standing
# in for systemd's) counts the 4 cgroups left without their OOM notification. Then the unit's
# effective mounts (every mount below /sys/fs/cgroup read-only but the memory hierarchy, which
# ReadWritePaths=-/sys/fs/cgroup/memory deny-lists): no such warning, and the early warning of
# a child waiting at its limit (oom_kill_disable, under_oom 1 read back) is printed.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/scenarios/notify-lib.inc"
require_cgroups
notify_require
command -v unshare >/dev/null || skip "needs unshare (util-linux)"
[ -r /dev/kmsg ] || skip "no /dev/kmsg"
M=$MCG_CGROOT
unshare -m --propagation private sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1"' sh "$M" ||
	skip "cannot make a read-only bind mount in a private mount namespace"
scratch_new ro
P=$CG PREL=$CGREL
scratch_new a "$P"
scratch_new b "$P"
scratch_new c "$P"
echo 32M >"$P/a/memory.limit_in_bytes"
STORE="$MCG_TMP/store"
sock="$MCG_TMP/notify.sock"
notify_listen "$sock"
: >"$MCG_TMP/notify.log"

# 1. ProtectControlGroups= alone: the memory hierarchy read-only
notify_start "$sock" unshare -m --propagation private sh -c \
	'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"' sh "$M" \
	"$MEMCGCTL" record --store "$STORE" -d 60s "$PREL"
notify_wait_ready record
REC=$NT_PID
grep -q " $M ro," "/proc/$REC/mountinfo" || fail "record's $M is not read-only: $(grep " $M " "/proc/$REC/mountinfo")"
grep -q " $M rw," /proc/self/mountinfo || fail "the host's $M changed"
line=$(grep "	READY=1" "$MCG_TMP/notify.log")
assert_eq "STATUS= counts the cgroups without OOM notifications" \
	"$REC	READY=1|STATUS=recording 4 cgroups every 60s into $STORE; OOM notifications not registered for 4 cgroups" "$line"
kill -CONT "$REC"
kill -TERM "$REC"
wait "$NT_WAIT" || fail "record failed: $(cat "$NT_ERR")"
cat "$NT_ERR"
assert_eq "one warning for 4 cgroups and the threshold" 1 "$(grep -c 'cannot register for' "$NT_ERR")"
grep "cannot register for memory.oom_control of cgroup '$PREL[/a-c]*' (cgroup.event_control): Read-only file system" "$NT_ERR" >/dev/null ||
	fail "the warning does not name the cgroup and the error: $(cat "$NT_ERR")"
ok "a read-only cgroupfs is said once and counted"

# 2. the unit's effective mounts: /sys/fs/cgroup and every hierarchy read-only, memory not
C="$P/a"
if [ -e "$C/memory.memsw.limit_in_bytes" ]; then
	echo 32M >"$C/memory.memsw.limit_in_bytes"
elif [ "$(awk 'NR > 1' /proc/swaps | wc -l)" != 0 ]; then
	skip "swap without memory.memsw.*: the child would swap, not wait at its limit"
fi
trap 'st=$?; set +e; echo 0 >"$C/memory.oom_control" 2>/dev/null; (exit $st); mcg_cleanup' EXIT
echo 1 >"$C/memory.oom_control"
# the mounts systemd remounts read-only (all below /sys/fs/cgroup but the deny-listed memory)
ROS=$(awk -v m="$M" '$5 == "/sys/fs/cgroup" || (index($5, "/sys/fs/cgroup/") == 1 && $5 != m && index($5, m "/") != 1) { print $5 }' /proc/self/mountinfo)
unshare -m --propagation private sh -c \
	'for r in $1; do mount -o remount,bind,ro "$r" || exit 99; done; shift; cp /proc/self/mountinfo "$1"; shift; exec "$@"' \
	sh "$ROS" "$MCG_TMP/ns.mountinfo" "$MEMCGCTL" oom --watch --json -n 1 "$PREL" \
	>"$MCG_TMP/w.json" 2>"$MCG_TMP/w.err" &
W=$!
echo "$W" >>"$MCG_CLEAN_PIDS"
wait_until "oom --watch opened /dev/kmsg" 10 sh -c 'ls -l "/proc/$1/fd" 2>/dev/null | grep -q /dev/kmsg' sh "$W"
grep -q " $M rw," "$MCG_TMP/ns.mountinfo" || fail "the memory hierarchy is not writable there"
for r in $ROS; do
	grep -q " $r ro," "$MCG_TMP/ns.mountinfo" || fail "$r is not read-only there"
done
ok "the unit's mounts: $(echo $ROS | wc -w) read-only, $M writable"
SPAWN_NOWAIT=1 spawn_in "$C" "$MCG_LOAD" anon 64
PID=$SPAWN_PID
wait_until "the child waits at the limit (under_oom 1)" 30 \
	sh -c 'grep -qx "under_oom 1" "$1/memory.oom_control"' sh "$C"
wait_until "the early warning" 30 grep -q '"event":"oom_warning"' "$MCG_TMP/w.json"
assert_eq "warning: cgroup" "$PREL/a" "$(grep '"event":"oom_warning"' "$MCG_TMP/w.json" | json .cgroup)"
echo 0 >"$C/memory.oom_control"
set +e
wait "$PID"
st=$?
set -e
assert_eq "the child was OOM-killed" 137 "$st"
wait "$W" || fail "oom --watch failed: $(cat "$MCG_TMP/w.err")"
assert_eq "the kill caught" "$PID" "$(sed -n 2p "$MCG_TMP/w.json" | json .pid)"
assert_eq "no registration failed" 0 "$(grep -c 'cannot register' "$MCG_TMP/w.err" || true)"
ok "warnings and kills under the unit's mounts"
