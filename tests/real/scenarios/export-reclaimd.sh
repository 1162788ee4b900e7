#!/bin/sh
# tiers: v1
# export's reclaimd family: with async reclaim enabled on a scratch cgroup and reclaimd
# serving it through 120 MiB of writes, `export --state-dir` prints the daemon's counters for
# that cgroup equal to `async-reclaim status --json`'s (read before and after, unchanged),
# reclaimed bytes at least 40 MiB; a sibling not enabled has none; the exposition is clean
# for promtool; its watermarks are gauges equal to status's high_bytes and low_bytes (64 MiB
# less the margins); without --state-dir (an empty run dir) and with --families not naming
# reclaimd there is no reclaimd sample; the dirty family of the same cgroup is one state.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/export/lib-export.sh"
require_cgroups
need_tool promtool prometheus
need_tool jq jq

scratch_new rd
echo $((64 * MIB)) >"$CG/$K_LIMIT"
mkdir "$CG/idle"
AR enable "$CGREL" --high-margin 16M --low-margin 32M --batch 256 --max-cpu 25 --clean --json \
	>"$MCG_TMP/en.json" || fail "async-reclaim enable failed"
pid=$(jq -r .reclaimd_pid "$MCG_TMP/en.json")
echo "$pid" >>"$MCG_CLEAN_PIDS"
kill -0 "$pid" || fail "reclaimd $pid is not running"
i=0
while [ $i -lt 30 ]; do # 120 MiB of page cache through the 64 MiB limit
	run_in "$CG" dd if=/dev/zero of="$MCG_DATA/chunk.$i" bs=1M count=4 conv=fsync 2>/dev/null
	i=$((i + 1))
done

# the daemon writes its stats at most once a second: compare with a status read before and
# after the export that agree
keys='.cgroups[0] | [.reclaimed_bytes, .wakeups, .steps, .cpu_ns, .deferred, .thrash_episodes, .high_bytes, .low_bytes] | @tsv'
n=0
while :; do
	sleep 1.2
	a=$(AR status --json "$CGREL" | jq -r "$keys")
	"$MEMCGCTL" export --state-dir "$SD" "$CGREL" >"$MCG_TMP/rd.prom" || fail "export failed"
	b=$(AR status --json "$CGREL" | jq -r "$keys")
	[ "$a" = "$b" ] && break
	n=$((n + 1))
	[ $n -lt 10 ] || fail "reclaimd's stats keep changing: $a / $b"
done
promtool check metrics <"$MCG_TMP/rd.prom" >"$MCG_TMP/promtool.out" 2>&1 ||
	fail "promtool: $(cat "$MCG_TMP/promtool.out")"
[ ! -s "$MCG_TMP/promtool.out" ] || fail "promtool says: $(cat "$MCG_TMP/promtool.out")"
val() { # METRIC CGROUP: the sample's value, or "absent"
	M="$1{cgroup=\"$2\"}" awk '$1 == ENVIRON["M"] { print $2; f = 1 }
		END { if (!f) print "absent" }' "$MCG_TMP/rd.prom"
}
set -- $a
say "status: reclaimed $1 wakeups $2 steps $3 cpu_ns $4 deferred $5 thrash $6"
assert_eq "reclaimed bytes" "$1" "$(val memcgctl_reclaimd_reclaimed_bytes_total "$CGREL")"
assert_eq "wake-ups" "$2" "$(val memcgctl_reclaimd_wakeups_total "$CGREL")"
assert_eq "steps" "$3" "$(val memcgctl_reclaimd_steps_total "$CGREL")"
assert_eq "CPU seconds" "$(awk -v n="$4" 'BEGIN { printf "%d.%09d", n / 1e9, n % 1e9 }')" \
	"$(val memcgctl_reclaimd_cpu_seconds_total "$CGREL")"
assert_eq "deferred" "$5" "$(val memcgctl_reclaimd_deferred_total "$CGREL")"
assert_eq "thrash episodes" "$6" "$(val memcgctl_reclaimd_thrash_episodes_total "$CGREL")"
assert_le "reclaimed at least 40 MiB" $((40 * MIB)) "$1"
assert_eq "not enabled: no sample" absent "$(val memcgctl_reclaimd_steps_total "$CGREL/idle")"
assert_eq "reclaimd families are counters" 6 "$(grep -c '^# TYPE memcgctl_reclaimd_[a-z_]*_total counter$' "$MCG_TMP/rd.prom")"
# the watermarks: status's, and what the margins make of the 64 MiB limit (the kernel's)
assert_eq "high watermark: status's" "$7" "$(val memcgctl_reclaimd_high_watermark_bytes "$CGREL")"
assert_eq "low watermark: status's" "$8" "$(val memcgctl_reclaimd_low_watermark_bytes "$CGREL")"
lim=$(knob "$CG" "$K_LIMIT")
assert_eq "high watermark: the kernel's limit - 16 MiB" $((lim - 16 * MIB)) "$(val memcgctl_reclaimd_high_watermark_bytes "$CGREL")"
assert_eq "low watermark: the kernel's limit - 32 MiB" $((lim - 32 * MIB)) "$(val memcgctl_reclaimd_low_watermark_bytes "$CGREL")"
assert_eq "watermarks are gauges" 2 "$(grep -c '^# TYPE memcgctl_reclaimd_[a-z]*_watermark_bytes gauge$' "$MCG_TMP/rd.prom")"
assert_eq "not enabled: no watermark" absent "$(val memcgctl_reclaimd_high_watermark_bytes "$CGREL/idle")"

# not asked for, or no state directory: no reclaimd sample
"$MEMCGCTL" export --state-dir "$SD" --families usage,events "$CGREL" >"$MCG_TMP/fam.prom"
! grep -q '^memcgctl_reclaimd_' "$MCG_TMP/fam.prom" || fail "--families usage,events prints reclaimd's counters"
"$MEMCGCTL" export "$CGREL" >"$MCG_TMP/nosd.prom" 2>"$MCG_TMP/nosd.err" || fail "export without a state dir failed"
! grep -q '^memcgctl_reclaimd_' "$MCG_TMP/nosd.prom" || fail "reclaimd's counters without its state directory"
[ ! -s "$MCG_TMP/nosd.err" ] || fail "export without a state dir said: $(cat "$MCG_TMP/nosd.err")"
ok "no reclaimd samples unless asked for and present"

# the dirty family: one sample per cgroup, 1, labelled with its state (v1: the global one)
gstate=$(sed -n 's/^memcgctl_dirty_global_state{state="\([a-z-]*\)"} 1$/\1/p' "$MCG_TMP/rd.prom")
[ -n "$gstate" ] || fail "no global dirty state is 1"
for c in "$CGREL" "$CGREL/idle"; do
	assert_eq "$c: dirty state samples" 1 "$(grep -c "^memcgctl_dirty_state{cgroup=\"$c\"," "$MCG_TMP/rd.prom")"
	assert_eq "$c: dirty state (v1: the global one)" 1 \
		"$(grep -c "^memcgctl_dirty_state{cgroup=\"$c\",state=\"$gstate\"} 1\$" "$MCG_TMP/rd.prom")"
done

AR disable "$CGREL" >/dev/null
reclaimd_exits "$pid" "with nothing enabled"
rm -f "$MCG_DATA"/chunk.*
