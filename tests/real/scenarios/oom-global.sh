#!/bin/sh
# tiers: v2
# A global (non-memcg) OOM told apart from a memcg one, only in the real-v2 QEMU guest (where
# everything is the test's own; never on a host): a child with oom_score_adj 1000, in a scratch
# cgroup with no memory limit, allocates past the guest's RAM. The kernel's oom-kill: line is
# CONSTRAINT_NONE with global_oom (no oom_memcg=); `memcgctl oom --json` (record running) stores
# the kill with scope "global", the OOM cgroup "/", the victim's pid, comm and anon-rss as the
# kernel log has them and the scratch cgroup as the victim's, and an explanation that names
# no cgroup limit.
set -eu
. "$MCG_TESTLIB"
require_cgroups
# the whole machine runs out of memory: only the guest, whose every process is the test's
[ "${MCG_TIER:-}" = real-v2 ] || skip "a global OOM is provoked only in the real-v2 guest"
[ -r /dev/kmsg ] || skip "no /dev/kmsg"
command -v dmesg >/dev/null 2>&1 || skip "no dmesg to read the kernel log with"
[ "$(cat /proc/sys/vm/panic_on_oom)" = 0 ] || skip "vm.panic_on_oom is set: an OOM would panic the guest"
[ "$(awk 'NR > 1' /proc/swaps | wc -l)" = 0 ] || skip "swap: the child would swap before the OOM"
MEM_KB=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
# the 768 MiB guest of run-guest.sh (MCG_V2_MEM_MIB): a bigger one would take TCG too long to fill
[ "$MEM_KB" -le $((2048 * 1024)) ] || skip "guest RAM $MEM_KB kB: more than 2 GiB to fill"
# one mapping just under MemTotal: the heuristic overcommit allows it (not over RAM + swap),
# and what the kernel, the initramfs and the other processes hold leaves it no room to fill
MIB=$((MEM_KB / 1024 - 4))

scratch_new global
REL=$CGREL
# no limit of its own, and none above it
[ "$(cat "$CG/memory.max")" = max ] || fail "the scratch cgroup has a memory.max"
[ "$(cat "$MCG_CGROOT/memory.max" 2>/dev/null || echo max)" = max ]

STORE="$MCG_TMP/store"
record_start "$REL" -d 60s
oom_report_room

set +e
# the kernel chooses the task with the highest badness: oom_score_adj 1000 makes it the child
sh -c 'echo $$ >"$1/cgroup.procs" || exit 99; echo 1000 >/proc/self/oom_score_adj || exit 98
	shift; exec "$@"' sh "$CG" "$MCG_LOAD" anon "$MIB" >"$MCG_TMP/load.out" 2>&1 &
PID=$!
echo "$PID" >>"$MCG_CLEAN_PIDS"
wait "$PID"
st=$?
set -e
assert_eq "the child was OOM-killed (SIGKILL), ${MIB} MiB of ${MEM_KB} kB" 137 "$st"
kill -0 "$REC" 2>/dev/null || fail "record did not survive the global OOM: $(cat "$MCG_TMP/rec.err")"

# the kernel's own lines for this pid
line=$(dmesg | grep "Killed process $PID (" | tail -n 1)
[ -n "$line" ] || fail "no 'Killed process $PID' in the kernel log"
say "kernel: $line"
case $line in
*"Memory cgroup out of memory"*) fail "the kernel calls it a memcg OOM: $line" ;;
*"Out of memory: Killed process"*) ok "the kernel's Killed line is a global OOM's" ;;
*) fail "unexpected Killed line: $line" ;;
esac
KCOMM=$(printf '%s\n' "$line" | sed 's/.*Killed process [0-9]* (\(.*\)) total-vm:.*/\1/')
KANON=$(printf '%s\n' "$line" | sed 's/.*anon-rss:\([0-9]*\)kB.*/\1/')
KADJ=$(printf '%s\n' "$line" | sed -n 's/.*oom_score_adj:\([-0-9]*\).*/\1/p')
sum=$(dmesg | grep "oom-kill:.*,pid=$PID," | tail -n 1)
[ -n "$sum" ] || fail "no oom-kill: line for pid $PID (the report window: oom_report_room)"
say "kernel: $sum"
case $sum in *constraint=CONSTRAINT_NONE,*) ok "oom-kill: constraint=CONSTRAINT_NONE" ;;
*) fail "not CONSTRAINT_NONE: $sum" ;; esac
case $sum in *,global_oom,*) ok "oom-kill: global_oom" ;; *) fail "no global_oom: $sum" ;; esac
case $sum in *oom_memcg=*) fail "the oom-kill: line names an OOM memcg: $sum" ;; esac
case $sum in *",task_memcg=$REL,"*) ok "oom-kill: task_memcg=$REL" ;;
*) fail "the victim's cgroup is not $REL: $sum" ;; esac

# stored by record
i=0
until "$MEMCGCTL" oom --store "$STORE" --json "$REL" >"$MCG_TMP/all.json" 2>/dev/null &&
	grep "\"pid\":$PID[,}]" "$MCG_TMP/all.json" >"$MCG_TMP/a.json"; do
	i=$((i + 1))
	[ $i -gt 300 ] && fail "no autopsy for pid $PID in the store after 30 s: $(cat "$MCG_TMP/rec.err")"
	sleep 0.1
done
cat "$MCG_TMP/a.json"
assert_eq "autopsies of pid $PID stored" 1 "$(wc -l <"$MCG_TMP/a.json")"
assert_eq "scope: not a memcg OOM" global "$(json .scope <"$MCG_TMP/a.json")"
assert_eq "OOM cgroup: the machine's root" / "$(json .oom_cgroup <"$MCG_TMP/a.json")"
assert_eq "victim cgroup, as the kernel log has it" "$REL" "$(json .victim_cgroup <"$MCG_TMP/a.json")"
assert_eq "comm, as the kernel log has it" "$KCOMM" "$(json .comm <"$MCG_TMP/a.json")"
assert_eq "anon-rss, as the kernel log has it" $((KANON * 1024)) "$(json .anon_rss_bytes <"$MCG_TMP/a.json")"
[ -z "$KADJ" ] || assert_eq "oom_score_adj, as the kernel log has it" "$KADJ" "$(json .oom_score_adj <"$MCG_TMP/a.json")"
assert_eq "oom_score_adj, the child's" 1000 "$(json .oom_score_adj <"$MCG_TMP/a.json")"
# a global OOM's task table is the machine's: the victim is its largest process
np=$(json '.processes | length' <"$MCG_TMP/a.json")
if [ "$np" -gt 0 ]; then
	assert_eq "largest process, from the kernel's task table" "$PID" "$(json '.processes[0].pid' <"$MCG_TMP/a.json")"
fi
why=$(json .explanation <"$MCG_TMP/a.json")
case $why in "the machine ran out of memory, not a cgroup limit"*) ok "explanation: $why" ;;
*) fail "the explanation does not tell a global OOM: $why" ;; esac
case $why in *memory.max*) fail "the explanation names memory.max: $why" ;; esac

# the text form says so too
"$MEMCGCTL" oom --store "$STORE" "$REL" >"$MCG_TMP/a.txt"
grep -q "victim: pid $PID ($KCOMM)" "$MCG_TMP/a.txt" || fail "text: $(cat "$MCG_TMP/a.txt")"
grep -q "the machine ran out of memory" "$MCG_TMP/a.txt" || fail "text: $(cat "$MCG_TMP/a.txt")"
kill -TERM "$REC"
wait "$REC" || fail "record failed: $(cat "$MCG_TMP/rec.err")"
ok "global OOM of pid $PID ($KCOMM) told apart"
