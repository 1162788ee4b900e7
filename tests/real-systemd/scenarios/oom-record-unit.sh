#!/bin/sh
# oom-record-unit (issue 27, item 5): memcgctl-record.service as shipped (its sandbox: the
# kernel log read-only through DeviceAllow=/dev/kmsg r, /sys/fs/cgroup read-only, no
# network) catches an OOM kill in a unit it did not start: a transient service with
# MemoryMax=16M, MemorySwapMax=0 whose process allocates 64 MiB. systemd stops the service
# after the kill (OOMPolicy=stop) and its cgroup is gone; the autopsy is read back from the
# unit's own store while the unit runs: pid and comm as the kernel log has them, scope memcg,
# the OOM and victim cgroup, the unit's name, the limit systemd wrote; 'memcgctl oom UNIT'
# finds it by the unit's name, dump --events lists it; then the unit stops cleanly.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real-systemd/lib-units.sh"
require_systemd
require_cmd dmesg jq
[ -r /dev/kmsg ] || skip "no /dev/kmsg"

store=/var/lib/memcgctl/history
[ -e /var/lib/memcgctl ] || echo /var/lib/memcgctl >>"$MCG_SD_RM"
sd_shipped_unit "$MCG_SRCDIR/lib/systemd/memcgctl-record.service.in"
u=$SU_UNIT
systemctl daemon-reload
systemctl start "$u" || fail "systemctl start $u failed: $(journalctl -u "$u" -o cat --no-pager | tail -n 5)"
RP=$(sd_prop "$u" MainPID)
# the catcher is up once it holds the kernel log open, inside the sandbox
kmsg_open() {
	for fd in "/proc/$1/fd/"*; do [ "$(readlink "$fd")" = /dev/kmsg ] && return 0; done
	return 1
}
wait_for "$u (pid $RP) to open /dev/kmsg" 60 kmsg_open "$RP"
ok "$u (pid $RP) reads /dev/kmsg"

# the victim: a service that allocates past its MemoryMax once told to
go=$MCG_DATA/oom.go
sd_service oomk -p MemoryMax=16M -p MemorySwapMax=0 -- \
	sh -c 'until [ -e "$1" ]; do sleep 0.1; done; exec "$2" anon 64' sh "$go" "$MCG_LOAD"
unit=$SD_UNIT
rel=$SD_CGREL
LIMIT=$(cat "$SD_CG/memory.max")
assert_eq "$unit: memory.max as systemd wrote it" 16777216 "$LIMIT"
PID=$(sd_prop "$unit" MainPID)
[ "$PID" -gt 0 ] || fail "$unit has no main pid"
# the recorder has seen the victim's cgroup (a frame of it in the store: the 5 s sample)
framed() { "$MEMCGCTL" dump --store "$store" --csv "$rel" 2>/dev/null | grep -q ",$rel,"; }
wait_for "a frame of $rel in $store" 60 framed
: >"$go"
gone() { ! systemctl -q is-active "$unit"; }
wait_for "$unit to be OOM-killed" 60 gone

line=$(dmesg | grep "Killed process $PID (" | tail -n 1)
[ -n "$line" ] || fail "no 'Killed process $PID' in the kernel log: $(dmesg | tail -n 5)"
KCOMM=$(printf '%s\n' "$line" | sed 's/.*Killed process [0-9]* (\(.*\)) total-vm:.*/\1/')
say "kernel: $line"
[ ! -d "$SD_CG" ] || say "note: $SD_CG still there"

stored() {
	"$MEMCGCTL" oom --store "$store" --json "$rel" >"$MCG_TMP/all.json" 2>"$MCG_TMP/oom.err" &&
		grep "\"pid\":${PID}[,}]" "$MCG_TMP/all.json" >"$MCG_TMP/a.json"
}
wait_for "the autopsy of pid $PID in $u's store" 30 stored
cat "$MCG_TMP/a.json"
jq -r '[.comm, .scope, .oom_cgroup, .victim_cgroup, (.unit // "-"), .limit_bytes] | @tsv' \
	<"$MCG_TMP/a.json" >"$MCG_TMP/a.tsv"
IFS='	' read -r comm scope oomcg viccg aunit limit <"$MCG_TMP/a.tsv"
assert_eq "comm, as the kernel log has it" "$KCOMM" "$comm"
assert_eq "scope" memcg "$scope"
assert_eq "OOM cgroup" "$rel" "$oomcg"
assert_eq "victim cgroup" "$rel" "$viccg"
assert_eq "unit" "$unit" "$aunit"
assert_eq "the limit that was hit" "$LIMIT" "$limit"

# by the unit's name, once the unit is gone
"$MEMCGCTL" oom --store "$store" "$unit" >"$MCG_TMP/a.txt" || fail "oom $unit: $(cat "$MCG_TMP/a.txt")"
grep -q "victim: pid $PID ($KCOMM)" "$MCG_TMP/a.txt" || fail "oom $unit: $(cat "$MCG_TMP/a.txt")"
grep -q "(unit $unit)" "$MCG_TMP/a.txt" || fail "oom $unit does not name the unit: $(cat "$MCG_TMP/a.txt")"
ok "memcgctl oom $unit shows the kill"
"$MEMCGCTL" dump --store "$store" --events --json "$rel" >"$MCG_TMP/events.json" ||
	fail "dump --events $rel failed"
grep -q '"event":"oom_autopsy"' "$MCG_TMP/events.json" ||
	fail "dump --events has no oom_autopsy event: $(head -c 600 "$MCG_TMP/events.json")"
ok "dump --events lists the autopsy"

assert_eq "$u: still running" active/running "$(sd_prop "$u" ActiveState)/$(sd_prop "$u" SubState)"
systemctl stop "$u"
assert_eq "$u after stop: Result" success "$(sd_prop "$u" Result)"
assert_eq "$u after stop: ExecMainStatus" 0 "$(sd_prop "$u" ExecMainStatus)"
journalctl -u "$u" -o short-iso --no-pager >"$MCG_ARTIFACTS/journal-record.txt" 2>&1 || true
! grep -q 'Sanitizer\|runtime error\|kmsg' "$MCG_ARTIFACTS/journal-record.txt" ||
	fail "$u's journal: $(grep -m3 'Sanitizer\|runtime error\|kmsg' "$MCG_ARTIFACTS/journal-record.txt")"
ok "autopsy of pid $PID ($KCOMM) in $unit, from $u as shipped"
