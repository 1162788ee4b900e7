#!/bin/sh
# tiers: v1 v2
# The recorder restarted between kills: a kill made while it was down is read from the kernel log
# at its next start and stored once; the kills stored before the restart are not stored again;
# a kill before the first start is not taken (the first run starts from the log's end).
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ -r /dev/kmsg ] || skip "no /dev/kmsg"
if [ "$MCG_CGVER" = 1 ] && [ ! -e "$MCG_CGROOT/memory.memsw.limit_in_bytes" ] &&
	[ "$(awk 'NR > 1' /proc/swaps | wc -l)" != 0 ]; then
	skip "swap without memory.memsw.*: the child would swap, not be OOM-killed"
fi

scratch_new r
REL=$CGREL
if [ "$MCG_CGVER" = 2 ]; then
	[ -e "$CG/memory.swap.max" ] && echo 0 >"$CG/memory.swap.max"
	echo 12M >"$CG/memory.max"
else
	echo 12M >"$CG/memory.limit_in_bytes"
fi
oom_report_room # kills made while record is down need the kernel's report
kill_one() { # kill_one: a child OOM-killed in CG; its pid in KPID
	set +e
	sh -c 'echo $$ >"$1/cgroup.procs" || exit 99; shift; exec "$@"' sh "$CG" "$MCG_LOAD" anon 64 \
		>/dev/null 2>&1 &
	KPID=$!
	wait "$KPID"
	st=$?
	set -e
	assert_eq "pid $KPID OOM-killed" 137 "$st"
}
count() { # count PID: autopsies of PID in the store
	"$MEMCGCTL" oom --store "$STORE" --json "$REL" >"$MCG_TMP/all.json"
	grep -c "\"pid\":$1[,}]" "$MCG_TMP/all.json" || true
}
wait_for_pid() {
	i=0
	until [ "$(count "$1")" -ge 1 ]; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "no autopsy for pid $1 after 10 s: $(cat "$MCG_TMP/rec.err")"
		sleep 0.1
	done
}
STORE="$MCG_TMP/store"
kill_one
P0=$KPID
record_start "$REL" -d 60s
kill_one
P1=$KPID
wait_for_pid "$P1"
kill -TERM "$REC"
wait "$REC" || fail "record failed: $(cat "$MCG_TMP/rec.err")"
kill_one
P2=$KPID
record_start "$REL" -d 60s
wait_for_pid "$P2"
kill_one
P3=$KPID
wait_for_pid "$P3"
kill -TERM "$REC"
wait "$REC" || fail "record failed: $(cat "$MCG_TMP/rec.err")"
assert_eq "the kill before the first start is not taken" 0 "$(count "$P0")"
assert_eq "the kill stored before the restart, once" 1 "$(count "$P1")"
assert_eq "the kill while the recorder was down, once" 1 "$(count "$P2")"
assert_eq "the kill after the restart, once" 1 "$(count "$P3")"
grep "\"pid\":$P2[,}]" "$MCG_TMP/all.json" >"$MCG_TMP/a.json"
assert_eq "the kill read late: its comm" "$(basename "$MCG_LOAD" | cut -c1-15)" "$(json .comm <"$MCG_TMP/a.json")"
ok "restart: no kill lost, none twice"
