#!/bin/sh
# tiers: v2
# cgroup v2 only (the memcg writeback domain): with a slow (throttled) disk, a write in a
# 128 MiB cgroup that lands between the memcg domain's background threshold and its free-run
# ceiling moves it from "below background" to "background writeback": the flusher's next
# periodic pass writes back (writeback pages are seen, in memcgctl's samples and in the
# kernel's memory.stat) and it is below background again, never throttled. Then, at 64 MiB,
# a writer of three times the background threshold is throttled.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ "$MCG_CGVER" = 2 ] || skip "the memcg writeback domain exists only on cgroup v2 (this is v$MCG_CGVER)"
# On a fast disk (the guest's cache=unsafe image) the flusher keeps the domain below its
# background threshold while the writer runs: there is nothing to see between two samples.
[ -n "${MCG_DISK_BPS_WRITE:-}" ] ||
	skip "needs a throttled data disk (MCG_V2_DISK_BPS_WRITE; ctest's real-v2/dirty sets it)"

scratch_new wb
echo $((128 * 1024 * 1024)) >"$CG/memory.max"
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/small" 1 >/dev/null

k1=$(stat_key "$CG" file_dirty)
"$MEMCGCTL" dirty --json "$CGREL" >"$MCG_TMP/before.json"
k2=$(stat_key "$CG" file_dirty)
got=$(json '.cgroups[0].dirty_bytes' <"$MCG_TMP/before.json")
lo=$k1 hi=$k2
[ "$lo" -gt "$hi" ] && { lo=$k2; hi=$k1; }
assert_le "file_dirty bounded below by the kernel's" "$lo" "$got"
assert_le "file_dirty bounded above by the kernel's" "$got" "$hi"
[ "$(json .global.cgroup_writeback <"$MCG_TMP/before.json")" = true ] ||
	skip "no cgroup writeback here (memory and io must both be on cgroup v2, see /proc/cgroups)"
assert_eq "domain state with 1 MiB dirty" "below-background" \
	"$(json '.cgroups[0].memcg_domain.state' <"$MCG_TMP/before.json")"
bg=$(json '.cgroups[0].domain_background_threshold_bytes' <"$MCG_TMP/before.json")
[ "$bg" -gt 0 ] || fail "memcg background threshold $bg"
ok "memcg background threshold $bg"

fr=$(json '.cgroups[0].domain_freerun_bytes' <"$MCG_TMP/before.json")

# The kernel sampler: memory.stat's file_writeback every 0.1 s, alongside memcgctl's samples.
ksample() { # COUNT OUT
	(
		i=0
		while [ $i -lt "$1" ]; do
			awk '$1 == "file_dirty" { d = $2 } $1 == "file_writeback" { w = $2 }
				END { print w, d }' "$CG/memory.stat"
			sleep 0.1
			i=$((i + 1))
		done
	) >"$2" &
	sampler=$!
	echo "$sampler" >>"$MCG_CLEAN_PIDS"
}
states_of() { jq -r 'select(.scope == "cgroup") | .memcg_domain.state' <"$1" | uniq | tr '\n' ','; }
max_of() { sort -n | tail -n 1; }
kmax_of() { cut -d' ' -f1 <"$1" | max_of; }
# On failure the samples stay in the results (the runner's $MCG_ARTIFACTS).
keep() { [ -n "${MCG_ARTIFACTS:-}" ] && cp "$@" "$MCG_ARTIFACTS/" 2>/dev/null || true; }

# 1. Between the thresholds: from a clean start (the small file synced) dirty+writeback stays
# below the free-run ceiling, so the writer is never throttled and only the flusher's
# periodic check (every dirty_writeback_centisecs, wb_over_bg_thresh()) starts writeback.
# How much it writes depends on the wb's share of the thresholds (its part of the recent
# writeback completions, wb_calc_thresh()): with none, all of it. The pass can come at once
# (its timer runs since the small write): the kernel sampler starts before the write.
sync "$MCG_DATA/small" 2>/dev/null || sync
mib=$(((bg + fr) / 2 / 1048576))
[ $((mib * 1048576)) -gt "$bg" ] ||
	fail "no whole MiB between the background threshold $bg and the free-run ceiling $fr"
# The watch runs before the write starts and until the domain is below background again
# (or 90 s): a writer slowed by a loaded host, with the flusher cleaning behind it, would
# leave a watch started after it nothing to see.
ksample 300 "$MCG_TMP/kwb1"
"$MEMCGCTL" dirty --watch 200ms --count 450 --json "$CGREL" >"$MCG_TMP/w1.jsonl" &
watch1=$!
echo "$watch1" >>"$MCG_CLEAN_PIDS"
i=0
until [ -s "$MCG_TMP/w1.jsonl" ]; do
	i=$((i + 1))
	[ $i -gt 300 ] && fail "dirty --watch wrote no sample in 30 s"
	sleep 0.1
done
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/mid" $mib >/dev/null
i=0
until case ",$(states_of "$MCG_TMP/w1.jsonl")" in *",background,"*"below-background,"*) true ;; *) false ;; esac; do
	i=$((i + 1))
	[ $i -gt 900 ] && break
	kill -0 "$watch1" 2>/dev/null || break
	sleep 0.1
done
kill "$watch1" 2>/dev/null || true
wait "$watch1" 2>/dev/null || true
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
states=$(states_of "$MCG_TMP/w1.jsonl")
say "wrote $mib MiB (background threshold $bg, free-run ceiling $fr): domain states $states"
# the kernel's own dirty decides what the verdict can be (wb_over_bg_thresh() compares dirty
# alone, not writeback, with the background threshold, and so does memcgctl): a writer slowed
# by a loaded host, with the flusher cleaning behind it, may never bring dirty above it, or
# for less than one of the watch's 200 ms intervals (3 kernel samples 0.1 s apart)
kd=$(awk '{ if ($2 + 0 > m) m = $2 } END { print m + 0 }' "$MCG_TMP/kwb1")
kover=$(awk -v bg="$bg" '$2 + 0 > bg + 0 { n++ } END { print n + 0 }' "$MCG_TMP/kwb1")
case ",$states" in
*",background,"*"below-background,"*) ok "the domain went from 'background' back to 'below-background'" ;;
*)
	if [ "$kover" -lt 3 ]; then
		keep "$MCG_TMP/kwb1" "$MCG_TMP/w1.jsonl"
		say "the kernel's dirty peaked at $kd, above the background threshold $bg in $kover samples" \
			"of 0.1 s (the writer was slower than the flusher): memcgctl's $states is right, no transition to see"
	else
		keep "$MCG_TMP/kwb1" "$MCG_TMP/w1.jsonl"
		fail "expected 'background' then 'below-background' writing $mib MiB: $states" \
			"(the kernel's dirty peaked at $kd, above the threshold $bg in $kover samples of 0.1 s)"
	fi
	;;
esac
case $states in
*throttled* | *over*) fail "a write below the free-run ceiling was classed as throttled: $states" ;;
esac
maxwb=$(jq -r 'select(.scope == "cgroup") | .writeback_bytes' <"$MCG_TMP/w1.jsonl" | max_of)
keep "$MCG_TMP/kwb1" "$MCG_TMP/w1.jsonl"
kmax=$(kmax_of "$MCG_TMP/kwb1")
[ "$kmax" -gt 0 ] || fail "the kernel's file_writeback stayed 0 in $(wc -l <"$MCG_TMP/kwb1") samples" \
	"(file_writeback file_dirty: $(uniq "$MCG_TMP/kwb1" | tr '\n' ','))"
# As with the states above: writeback the kernel's own 0.1 s samples show in fewer than 3 of
# them (a loaded host's guest: 1 of 44, 8 MiB for one sample) can fall between two of the
# watch's 200 ms samples; seen longer, memcgctl must see it.
kwbn=$(awk '$1 + 0 > 0 { n++ } END { print n + 0 }' "$MCG_TMP/kwb1")
if [ "$maxwb" -gt 0 ]; then
	ok "writeback seen: memcgctl up to $maxwb, the kernel's memory.stat up to $kmax"
	wf=$(jq -r 'select(.scope == "cgroup" and .writeback_for_ns != null) | .writeback_for_ns' <"$MCG_TMP/w1.jsonl" | tail -n 1)
	[ -n "$wf" ] || fail "no writeback_for_ns while writing back"
	ok "time since writeback began: ${wf} ns"
elif [ "$kwbn" -lt 3 ]; then
	say "the kernel's writeback (up to $kmax) lasted $kwbn of its 0.1 s samples: too short for the watch's 200 ms, not seen"
else
	fail "memcgctl never saw writeback pages (the kernel's memory.stat: up to $kmax, in $kwbn samples of 0.1 s)"
fi

# 2. At 64 MiB, three times the background threshold: the writer is throttled, not killed.
# From a clean start again: the first write synced and its writeback done (the slow disk
# may still be writing it back when the domain is below background).
sync "$MCG_DATA/mid" 2>/dev/null || sync
i=0
until [ "$(stat_key "$CG" file_writeback)" = 0 ] && [ "$(stat_key "$CG" file_dirty)" -le 1048576 ]; do
	i=$((i + 1))
	[ $i -gt 600 ] && fail "the first write not written back in 60 s: $(grep -E '^file_(dirty|writeback) ' "$CG/memory.stat" | tr '\n' ' ')"
	sleep 0.1
done
echo $((64 * 1024 * 1024)) >"$CG/memory.max"
"$MEMCGCTL" dirty --json "$CGREL" >"$MCG_TMP/before2.json"
bg=$(json '.cgroups[0].domain_background_threshold_bytes' <"$MCG_TMP/before2.json")
assert_eq "domain state before the big write" "below-background" \
	"$(json '.cgroups[0].memcg_domain.state' <"$MCG_TMP/before2.json")"
mib=$((bg * 3 / 1048576 + 4))
SPAWN_NOWAIT=1 spawn_in "$CG" "$MCG_LOAD" write "$MCG_DATA/big" $mib --hold
writer=$SPAWN_PID
ksample 50 "$MCG_TMP/kwb2"
"$MEMCGCTL" dirty --watch 200ms --count 25 --json "$CGREL" >"$MCG_TMP/w2.jsonl"
wait "$sampler" 2>/dev/null || true
stop_pid "$writer"
states=$(states_of "$MCG_TMP/w2.jsonl")
say "wrote $mib MiB: domain states $states"
echo "$states" | grep -Eq "throttled|over" ||
	fail "the domain never reached the free-run ceiling writing $mib MiB (bg threshold $bg): $states"
ok "the domain moved past the free-run ceiling"
maxwb=$(jq -r 'select(.scope == "cgroup") | .writeback_bytes' <"$MCG_TMP/w2.jsonl" | max_of)
keep "$MCG_TMP/kwb2" "$MCG_TMP/w2.jsonl"
kmax=$(kmax_of "$MCG_TMP/kwb2")
[ "$maxwb" -gt 0 ] && [ "$kmax" -gt 0 ] || fail "writeback while throttled: memcgctl $maxwb, kernel $kmax"
ok "writeback while throttled: memcgctl up to $maxwb, the kernel's memory.stat up to $kmax"
