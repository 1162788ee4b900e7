#!/bin/sh
# tiers: v1 v2
# async-reclaim: bad input is refused and changes nothing; enabled, reclaimd keeps a writer's
# cgroup under the high watermark (usage back under low, the limit barely or never hit);
# status reports it; disabled, the daemon exits and usage climbs to the limit again.
set -eu
. "$MCG_TESTLIB"
require_cgroups

# limit hits: v1 failcnt, v2 memory.events max
hits() {
	if [ "$MCG_CGVER" = 2 ]; then awk '$1 == "max" { print $2 }' "$1/memory.events"
	else cat "$1/memory.failcnt"; fi
}
# chunks CG N [ROOM]: N clean 4 MiB files written from a child in CG, 0.1 s apart; with ROOM,
# each once usage is ROOM bytes under the limit (reclaimd's work, 60 s at most), so that a
# daemon descheduled on a loaded machine is waited for, not outrun into the limit
chunks() {
	ch=0
	while [ $ch -lt "$2" ]; do
		if [ -n "${3:-}" ]; then
			usage_under "$1" $(($(knob "$1" "$K_LIMIT") - $3)) "room for chunk $ch" 60 >/dev/null
		fi
		# dd, not mcg-load: a sanitizer build of mcg-load charges its own runtime's memory
		run_in "$1" dd if=/dev/zero of="$MCG_DATA/chunk.$ch" bs=1M count=4 conv=fsync 2>/dev/null
		sleep 0.1
		ch=$((ch + 1))
	done
}

scratch_new nolimit
NOLIM=$CGREL
scratch_new ar
echo $((64 * MIB)) >"$CG/$K_LIMIT"
limit=$(knob "$CG" "$K_LIMIT")

# ---- refused: nothing is written, the limit stays ----
assert_status "high above the limit" 64 AR enable "$CGREL" --high 70M
echo "$LAST_ERR" | grep -q "invalid watermarks" || fail "no 'invalid watermarks' message: $LAST_ERR"
assert_status "low above high" 64 AR enable "$CGREL" --high 40M --low 50M
assert_status "high margin as large as the limit" 64 AR enable "$CGREL" --high-margin 64M
assert_status "high equal to low" 64 AR enable "$CGREL" --high 40M --low 40M
assert_status "bad size" 64 AR enable "$CGREL" --high 40Q
assert_status "batch 0" 64 AR enable "$CGREL" --batch 0
assert_status "max-cpu 0" 64 AR enable "$CGREL" --max-cpu 0
assert_status "max-cpu above 100" 64 AR enable "$CGREL" --max-cpu 101
assert_status "high and high-margin together" 64 AR enable "$CGREL" --high 40M --high-margin 8M
assert_status "no limit" 1 AR enable "$NOLIM"
echo "$LAST_ERR" | grep -q "no memory limit" || fail "no 'no memory limit' message: $LAST_ERR"
assert_status "unknown cgroup" 64 AR enable /memcgctl-test-no-such-cgroup-$$
if command -v taskset >/dev/null; then
	assert_status "single CPU without --force" 1 taskset -c 0 "$MEMCGCTL" async-reclaim enable "$CGREL" --state-dir "$SD"
	echo "$LAST_ERR" | grep -q "force" || fail "single-CPU refusal does not mention --force: $LAST_ERR"
fi
assert_status "disable when not enabled (as systemctl disable: 0)" 0 AR disable "$CGREL"
assert_eq "limit unchanged after refusals" "$limit" "$(knob "$CG" "$K_LIMIT")"
assert_eq "nothing enabled" 0 "$(AR status --json | jq '.cgroups | length')"
assert_eq "no daemon" false "$(AR status --json | jq -r '.reclaimd.running')"

# ---- enabled: high 48 MiB, low 32 MiB ----
AR enable "$CGREL" --high-margin 16M --low-margin 32M --batch 256 --max-cpu 25 --clean --json >"$MCG_TMP/en.json"
assert_eq "high" $((48 * MIB)) "$(jq -r .high_bytes "$MCG_TMP/en.json")"
assert_eq "low" $((32 * MIB)) "$(jq -r .low_bytes "$MCG_TMP/en.json")"
pid=$(jq -r .reclaimd_pid "$MCG_TMP/en.json")
echo "$pid" >>"$MCG_CLEAN_PIDS"
kill -0 "$pid" || fail "reclaimd $pid is not running"
ok "reclaimd runs as pid $pid"
assert_eq "reclaimd's comm, whole" memcg-reclaimd "$(cat "/proc/$pid/comm")"
assert_eq "status: pid" "$pid" "$(daemon_pid)"
# a second enable reuses the running daemon
AR enable "$CGREL" --high-margin 16M --low-margin 32M --batch 256 --max-cpu 25 --clean >/dev/null
assert_eq "one daemon" "$pid" "$(daemon_pid)"

h0=$(hits "$CG")
chunks "$CG" 30 $((8 * MIB)) # 120 MiB through a 64 MiB limit
usage_under "$CG" $((48 * MIB)) "usage back under high" 60
h1=$(hits "$CG")
st() { jq -r ".cgroups[0].$1" "$MCG_TMP/st.json"; }
# the daemon writes its stats at most once a second: until they show the reclaim (10 s)
i=0
while AR status --json "$CGREL" >"$MCG_TMP/st.json" && [ "$(st reclaimed_bytes)" -lt $((40 * MIB)) ] &&
	[ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
say "status: $(jq -c '.cgroups[0] | {state, reclaimed_bytes, wakeups, steps, short_steps, deferred, cpu_ns, last_error}' "$MCG_TMP/st.json")"
# none while usage has room for each chunk; without it, ~200 (below)
assert_le "limit hits while enabled (barely move)" $((h1 - h0)) 12
assert_eq "status path" "$CGREL" "$(st cgroup)"
assert_eq "status enabled" true "$(st enabled)"
assert_le "status: reclaimed >= 40 MiB" $((40 * MIB)) "$(st reclaimed_bytes)"
assert_le "status: wake-ups" 1 "$(st wakeups)"
assert_le "status: steps" 1 "$(st steps)"
assert_eq "status: no error" null "$(st last_error)"
assert_eq "status: high" $((48 * MIB)) "$(st high_bytes)"
if [ "$MCG_CGVER" = 1 ]; then
	assert_eq "status: woken by the usage threshold" eventfd "$(st event_source)"
fi
assert_eq "limit restored after every step" "$limit" "$(knob "$CG" "$K_LIMIT")"
# the text table's RECLAIMED column, as bytes (--raw): at least what JSON said before
assert_le "text status: reclaimed" "$(st reclaimed_bytes)" \
	"$(AR status "$CGREL" --raw --noheadings -o reclaimed_bytes)"

# ---- without --clean, clean page cache is left to the kernel ----
AR enable "$CGREL" --high-margin 16M --low-margin 32M --batch 256 --max-cpu 25 >/dev/null
sleep 1.2 # the daemon writes its stats at most once a second
AR status --json "$CGREL" >"$MCG_TMP/st.json"
steps0=$(st steps)
chunks "$CG" 12
# until the daemon's stats show a skip (10 s)
i=0
while AR status --json "$CGREL" >"$MCG_TMP/st.json" && [ "$(st clean_skips)" = 0 ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
say "status: $(jq -c '.cgroups[0] | {state, clean, steps, clean_skips}' "$MCG_TMP/st.json")"
assert_eq "clean cache: not reclaimed ahead" clean "$(st state)"
assert_le "clean cache: skips counted" 1 "$(st clean_skips)"
assert_eq "clean cache: no new steps" "$steps0" "$(st steps)"
assert_le "clean cache: usage above high, the kernel reclaims at the limit" $((48 * MIB)) "$(knob "$CG" "$K_USAGE")"

# ---- disabled: the daemon exits, usage climbs to the limit ----
AR disable "$CGREL" >/dev/null
reclaimd_exits "$pid" "with nothing enabled"
assert_eq "status after disable" false "$(AR status --json | jq -r '.reclaimd.running')"
h2=$(hits "$CG")
chunks "$CG" 20
usage=$(knob "$CG" "$K_USAGE")
assert_le "usage climbs above the old high watermark" $((48 * MIB)) "$usage"
h3=$(hits "$CG")
[ $((h3 - h2)) -gt $((h1 - h0)) ] || fail "limit hits without async reclaim ($((h3 - h2))) not above those with it ($((h1 - h0)))"
ok "limit hits: $((h1 - h0)) with async reclaim, $((h3 - h2)) without"
assert_eq "limit unchanged" "$limit" "$(knob "$CG" "$K_LIMIT")"
# the daemons' own log: no sanitizer report, no error
reclaimd_log_clean
