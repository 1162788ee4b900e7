#!/bin/sh
# tiers: v1 v2
# A child allocating past a small limit in a scratch cgroup is OOM-killed while record runs with
# a 60 s interval: 'memcgctl oom' shows its autopsy long before the next sample (stored when
# caught), with the victim's pid and comm as the kernel log has them, the OOM cgroup and the
# victim's, the limit read back from the kernel's file, a breakdown and an explanation with the
# usage growth since the recorder's first sample; --since
# after the kill shows nothing, and --json --watch sees the same kill live; export (one-shot
# and --listen) counts it in memcgctl_oom_kills_total as the kernel does.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ -r /dev/kmsg ] || skip "no /dev/kmsg"
command -v dmesg >/dev/null 2>&1 || skip "no dmesg to read the kernel log with"

scratch_new oom
REL=$CGREL
if [ "$MCG_CGVER" = 2 ]; then
	[ -e "$CG/memory.swap.max" ] && echo 0 >"$CG/memory.swap.max"
	echo 16M >"$CG/memory.max"
else
	echo 16M >"$CG/memory.limit_in_bytes"
	if [ -e "$CG/memory.memsw.limit_in_bytes" ]; then
		echo 24M >"$CG/memory.memsw.limit_in_bytes"
	elif [ "$(awk 'NR > 1' /proc/swaps | wc -l)" != 0 ]; then
		skip "swap without memory.memsw.*: the child would swap, not be OOM-killed"
	fi
fi
LIMIT=$(knob "$CG" "$K_LIMIT")

STORE="$MCG_TMP/store"
TR0=$(now_floor)
record_start "$REL" -d 60s
"$MEMCGCTL" oom --watch --json -n 1 "$REL" >"$MCG_TMP/watch.json" 2>"$MCG_TMP/watch.err" &
W=$!
echo "$W" >>"$MCG_CLEAN_PIDS"
# the watcher is up once it holds /dev/kmsg open
i=0
until ls -l "/proc/$W/fd" 2>/dev/null | grep -q /dev/kmsg; do
	i=$((i + 1))
	[ $i -gt 100 ] && fail "oom --watch did not open /dev/kmsg: $(cat "$MCG_TMP/watch.err")"
	sleep 0.05
done

TK0=$(now_floor)
set +e
# not run_in: a function in the background is a subshell, and its pid not the child's
sh -c 'echo $$ >"$1/cgroup.procs" || exit 99; shift; exec "$@"' sh "$CG" "$MCG_LOAD" anon 64 \
	>/dev/null 2>&1 &
PID=$!
wait "$PID"
st=$?
set -e
TK1=$(now_ceil)
assert_eq "the child was OOM-killed (SIGKILL)" 137 "$st"

# the kernel's own line for this pid
line=$(dmesg | grep "Killed process $PID (" | tail -n 1)
[ -n "$line" ] || fail "no 'Killed process $PID' in the kernel log"
KCOMM=$(printf '%s\n' "$line" | sed 's/.*Killed process [0-9]* (\(.*\)) total-vm:.*/\1/')
KANON=$(printf '%s\n' "$line" | sed 's/.*anon-rss:\([0-9]*\)kB.*/\1/')
say "kernel: $line"

# stored at once: well before the next 60 s sample
i=0
until "$MEMCGCTL" oom --store "$STORE" --json "$REL" >"$MCG_TMP/all.json" 2>/dev/null &&
	grep "\"pid\":$PID[,}]" "$MCG_TMP/all.json" >"$MCG_TMP/a.json"; do
	i=$((i + 1))
	[ $i -gt 100 ] && fail "no autopsy for pid $PID in the store after 10 s: $(cat "$MCG_TMP/rec.err")"
	sleep 0.1
done
TK2=$(now_ceil)
cat "$MCG_TMP/a.json"
assert_eq "comm, as the kernel log has it" "$KCOMM" "$(json .comm <"$MCG_TMP/a.json")"
assert_eq "anon-rss, as the kernel log has it" $((KANON * 1024)) "$(json .anon_rss_bytes <"$MCG_TMP/a.json")"
assert_eq "scope" memcg "$(json .scope <"$MCG_TMP/a.json")"
assert_eq "OOM cgroup" "$REL" "$(json .oom_cgroup <"$MCG_TMP/a.json")"
assert_eq "victim cgroup" "$REL" "$(json .victim_cgroup <"$MCG_TMP/a.json")"
assert_eq "the limit that was hit, as the kernel's file reads" "$LIMIT" "$(json .limit_bytes <"$MCG_TMP/a.json")"
bd=$(json .breakdown <"$MCG_TMP/a.json")
[ "$bd" = kernel ] || [ "$bd" = sample ] || fail "no breakdown: $bd"
if [ "$bd" = kernel ]; then
	# the kernel's task table: the victim is the cgroup's largest process
	assert_eq "largest process, from the kernel's report" "$PID" "$(json '.processes[0].pid' <"$MCG_TMP/a.json")"
fi
anon=$(json .record.anon_bytes <"$MCG_TMP/a.json")
assert_le "anon in the breakdown is most of the limit" $((LIMIT / 2)) "$anon"
t=$(json .timestamp_ns <"$MCG_TMP/a.json")
assert_le "autopsy time after the child started" "$TK0" $((t / 1000000 + 1))
# The kill's stamp is mapped to the wall clock by an offset the watcher bounds from the
# records it reads (memcgctl-oom(8)): late by at most the delay of its read, which a loaded
# host stretches past the reap (1.04 s at a load of 22). It was read before it was stored.
assert_le "autopsy time no later than it was found in the store" $((t / 1000000)) "$TK2"
# the growth before the kill: from the recorder's first sample (the cgroup empty) to the kill
g=$(json .usage_growth_bytes_per_second <"$MCG_TMP/a.json")
gw=$(json .usage_growth_window_us <"$MCG_TMP/a.json")
[ "$g" != null ] && [ "$g" -gt 0 ] || fail "no usage growth before the kill: $(cat "$MCG_TMP/a.json")"
assert_le "growth window within the recording" $((gw / 1000)) $((TK1 - TR0))
json .explanation <"$MCG_TMP/a.json" | grep -q "; usage grew .*/s over the last " ||
	fail "the explanation does not tell the growth: $(json .explanation <"$MCG_TMP/a.json")"
json .explanation <"$MCG_TMP/a.json" | grep -q "reached $K_LIMIT" ||
	fail "the explanation does not name $K_LIMIT: $(json .explanation <"$MCG_TMP/a.json")"

# export: memcgctl_oom_kills_total is the kernel's own count (v1 memory.oom_control, v2
# memory.events), one-shot and from --listen's sampler
if [ "$MCG_CGVER" = 2 ]; then KF=memory.events; else KF=memory.oom_control; fi
KK=$(awk '$1 == "oom_kill" { print $2 }' "$CG/$KF")
assert_le "the kernel counted the kill ($KF oom_kill)" 1 "$KK"
kills() { # FILE: the scratch cgroup's memcgctl_oom_kills_total, or "absent"
	M="memcgctl_oom_kills_total{cgroup=\"$REL\"}" awk '$1 == ENVIRON["M"] { print $2; f = 1 }
		END { if (!f) print "absent" }' "$1"
}
"$MEMCGCTL" export --families oom "$REL" >"$MCG_TMP/oom.prom" || fail "export --families oom failed"
grep -qx '# TYPE memcgctl_oom_kills_total counter' "$MCG_TMP/oom.prom" ||
	fail "export: no counter family memcgctl_oom_kills_total: $(head -c 400 "$MCG_TMP/oom.prom")"
assert_eq "export: memcgctl_oom_kills_total is $KF's oom_kill" "$KK" "$(kills "$MCG_TMP/oom.prom")"
if command -v curl >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	. "$MCG_SRCDIR/tests/real/export/lib-export.sh"
	port=$(free_port)
	serve exporter "$MEMCGCTL" export --listen "127.0.0.1:$port" --families oom "$REL"
	wait_http "http://127.0.0.1:$port/metrics" "$SERVE_PID"
	curl -fsS "http://127.0.0.1:$port/metrics" >"$MCG_TMP/oom-listen.prom"
	assert_eq "export --listen: memcgctl_oom_kills_total" "$KK" "$(kills "$MCG_TMP/oom-listen.prom")"
	stop_server "$SERVE_PID"
fi

# the text form names the same
"$MEMCGCTL" oom --store "$STORE" "$REL" >"$MCG_TMP/a.txt"
grep -q "victim: pid $PID ($KCOMM)" "$MCG_TMP/a.txt" || fail "text: $(cat "$MCG_TMP/a.txt")"
# --since after the kill: none
"$MEMCGCTL" oom --store "$STORE" --since "@$((TK1 / 1000 + 2))" "$REL" >"$MCG_TMP/none.txt"
assert_eq "--since after the kill" "no OOM kill recorded since then" "$(cat "$MCG_TMP/none.txt")"

# the live watcher saw it too
wait "$W" || fail "oom --watch failed: $(cat "$MCG_TMP/watch.err")"
# the kill's object: an early warning (oom_warning, memcgctl-oom(8)) may come before it,
# when the watcher saw usage at the limit before the kernel killed
kill_json() { json "select(.event != \"oom_warning\") | $1" <"$MCG_TMP/watch.json"; }
assert_eq "oom --watch: pid" "$PID" "$(kill_json .pid)"
assert_eq "oom --watch: comm" "$KCOMM" "$(kill_json .comm)"
kill -TERM "$REC"
wait "$REC" || fail "record failed: $(cat "$MCG_TMP/rec.err")"
# and dump --events lists it
"$MEMCGCTL" dump --store "$STORE" --events --json "$REL" | grep -q '"event":"oom_autopsy"' ||
	fail "dump --events has no oom_autopsy event"
ok "autopsy of pid $PID ($KCOMM)"
