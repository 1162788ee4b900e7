#!/bin/sh
# tiers: v1 v2
# record samples a scratch workload every 250 ms while the test fills page cache, changes the
# limit, empties the cgroup, makes one cgroup and removes another; dump then shows the kernel's
# values at the recorded times, bracketed against reads the test took itself (a frame's reads
# lie between its time and the next frame's), rates computed between recorded samples, and the
# events: the limit change and the empty (who and what), the cgroups created and removed.
set -eu
. "$MCG_TESTLIB"
require_cgroups


scratch_new work
W=$CG WREL=$CGREL
scratch_new gone
G=$CG GREL=$CGREL
STORE="$MCG_TMP/store"
REC_INTERVAL=250

record_start "$WREL" -d ${REC_INTERVAL}ms

# 1. page cache: usage as the test reads it over a window
run_in "$W" "$MCG_LOAD" write "$MCG_DATA/clean" 48 --sync >/dev/null
T1=$(now_ceil)
u1=$(knob "$W" "$K_USAGE")
frames_after "$WREL" "$T1" 8
u2=$(knob "$W" "$K_USAGE")
T2=$(now_floor)
assert_le "filled: usage >= 40 MiB" $((40 * 1048576)) "$u1"

# 2. a limit change (the limit was max)
L0=$(knob "$W" "$K_LIMIT")
TS0=$(now_floor)
"$MEMCGCTL" set-limit "$WREL" 64M >/dev/null
TS1=$(now_ceil)
L1=$(knob "$W" "$K_LIMIT")
assert_eq "limit set" 67108864 "$L1"
frames_after "$WREL" "$TS1" 4

# 3. empty (v1 lowers the limit for a moment: samples during it are not compared)
TE0=$(now_floor)
"$MEMCGCTL" empty "$WREL" >/dev/null
TE1=$(now_ceil)
T3=$(now_ceil)
u3=$(knob "$W" "$K_USAGE")
frames_after "$WREL" "$T3" 8
u4=$(knob "$W" "$K_USAGE")
T4=$(now_floor)
assert_le "emptied: usage <= 4 MiB" "$u3" $((4 * 1048576))

# 4. a cgroup made, one removed
TC0=$(now_floor)
scratch_new born
BREL=$CGREL
TC1=$(now_ceil)
TR0=$(now_floor)
rmdir "$G"
TR1=$(now_ceil)
frames_after "$WREL" "$TR1" 6

kill -TERM "$REC" || fail "record died: $(cat "$MCG_TMP/rec.err")"
set +e
wait "$REC"
st=$?
set -e
assert_eq "record exits 0 on SIGTERM" 0 "$st"
[ -s "$MCG_TMP/rec.err" ] && say "record said: $(cat "$MCG_TMP/rec.err")"

"$MEMCGCTL" dump --store "$STORE" --csv >"$MCG_TMP/d.csv"
# frames: t_ms, next frame's t_ms, usage, limit of the workload (one line per frame)
awk -F, -v w="$WREL" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["event"] == "" && $col["cgroup"] == w {
		n++; t[n] = substr($1, 1, length($1) - 6); u[n] = $col["usage_bytes"]; l[n] = $col["limit_bytes"]
		ts[n] = $1; c[n] = $col["pgfault"]; cr[n] = $col["pgfault_per_s"]
		# an unlimited limit is empty (issue 25): "max" below
		if (l[n] == "") l[n] = "max"
		if (!("usage_bytes_per_s" in col) && !("limit_bytes_per_s" in col)) nogauge = 1
	}
	END { for (i = 1; i <= n; i++) print t[i], (i < n ? t[i + 1] : 99999999999999), u[i], l[i], ts[i], c[i], (cr[i] == "" ? "-" : cr[i]), nogauge + 0 }
' "$MCG_TMP/d.csv" >"$MCG_TMP/frames"
nf=$(wc -l <"$MCG_TMP/frames")
assert_le "frames of the workload recorded" 20 "$nf"

# usage: every frame read inside [T1, T2] holds what the test read there (page cache held)
lo=$u1 hi=$u2
[ "$u2" -lt "$u1" ] && lo=$u2 hi=$u1
n=$(awk -v a="$T1" -v b="$T2" -v lo="$lo" -v hi="$hi" -v s=1048576 '
	$1 + 0 > a + 0 && $2 + 0 < b + 0 { n++; if ($3 < lo - s || $3 > hi + s) { print "bad", $0; exit 1 } }
	END { print n + 0 }' "$MCG_TMP/frames") || fail "recorded usage outside the test's reads [$lo, $hi]: $n"
assert_le "frames in the page-cache window match the kernel's usage" 2 "$n"
lo=$u3 hi=$u4
[ "$u4" -lt "$u3" ] && lo=$u4 hi=$u3
n=$(awk -v a="$T3" -v b="$T4" -v lo="$lo" -v hi="$hi" -v s=1048576 '
	$1 + 0 > a + 0 && $2 + 0 < b + 0 { n++; if ($3 < lo - s || $3 > hi + s) { print "bad", $0; exit 1 } }
	END { print n + 0 }' "$MCG_TMP/frames") || fail "recorded usage after empty outside [$lo, $hi]: $n"
assert_le "frames after empty match the kernel's usage" 2 "$n"

# limit: max before the change, 64 MiB after it (outside the empty)
if [ "$MCG_CGVER" = 1 ]; then [ "$L0" = "$V1_MAX" ] || fail "limit was $L0"; else [ "$L0" = max ] || fail "limit was $L0"; fi
n=$(awk -v b="$TS0" '$2 + 0 < b + 0 { n++; if ($4 != "max") { print "bad", $0; exit 1 } } END { print n + 0 }' \
	"$MCG_TMP/frames") || fail "a frame before set-limit has limit $n"
assert_le "frames before set-limit show no limit" 3 "$n"
n=$(awk -v a="$TS1" -v e0="$TE0" -v e1="$TE1" -v l="$L1" '
	$1 + 0 > a + 0 && ($2 + 0 < e0 + 0 || $1 + 0 > e1 + 0) { n++; if ($4 != l) { print "bad", $0; exit 1 } }
	END { print n + 0 }' "$MCG_TMP/frames") || fail "a frame after set-limit has limit $n"
assert_le "frames after set-limit show $L1" 6 "$n"

# rates: of event counters only, between two recorded samples, as top computes them live
awk '{ if (p != "" && $7 != "-") { dt = ($5 - pt) / 1e9; want = ($6 - pc) / dt
	d = want - $7; if (d < 0) d = -d; if (d > 1e-4 * (want < 0 ? -want : want) + 1e-3) { print "bad", $0; exit 1 }; n++ }
	p = 1; pt = $5; pc = $6 } END { if (n < 10 || $8 != 1) exit 1 }' "$MCG_TMP/frames" ||
	fail "pgfault_per_s is not (pgfault - previous pgfault) / interval, or a gauge has a rate"
ok "pgfault_per_s = change of the recorded pgfault / interval; no rate of usage or limit"

# events: event rows have the event name in the 'event' column; the detail is the rest
ev() { # NAME CGROUP -> "t_ms detail" lines
	awk -F, -v e="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["event"] == e && $col["cgroup"] == c { d = $0; for (i = 1; i <= col["event"]; i++) sub(/^[^,]*,/, "", d)
			print substr($1, 1, length($1) - 6), d }' "$MCG_TMP/d.csv"
}
ev change "$WREL" >"$MCG_TMP/ev"
cat "$MCG_TMP/ev"
n=$(awk -v a="$TS0" -v b="$TS1" -v k="$K_LIMIT" '$1 + 0 >= a + 0 && $1 + 0 <= b + 0 &&
	index($0, "set-limit: " k " max -> 67108864") && index($0, "uid 0,") && index($0, "memcgctl)") { n++ }
	END { print n + 0 }' "$MCG_TMP/ev")
assert_eq "one set-limit event in [TS0, TS1] with the knob, before, after and who" 1 "$n"
n=$(awk -v a="$TE0" -v b="$TE1" '$1 + 0 >= a + 0 && $1 + 0 <= b + 0 && index($0, "empty: reclaimed ") { n++ }
	END { print n + 0 }' "$MCG_TMP/ev")
assert_eq "one empty event in [TE0, TE1]" 1 "$n"
# a cgroup's life is seen at the first sample after it: by the second frame after the change
# (the frames, not the clock: a loaded machine may sample late)
late_r=$(frame_after "$WREL" "$TR1" 2) late_c=$(frame_after "$WREL" "$TC1" 2)
# from the sample in flight when the change began (its frame bears its start time)
TRS=$(frame_since "$WREL" "$TR0") TCS=$(frame_since "$WREL" "$TC0")
n=$(ev removed "$GREL" | awk -v a="$TRS" -v b="$late_r" '$1 + 0 >= a + 0 && $1 + 0 <= b + 0 { n++ } END { print n + 0 }')
assert_eq "one removed event for $GREL" 1 "$n"
n=$(ev created "$BREL" | awk -v a="$TCS" -v b="$late_c" '$1 + 0 >= a + 0 && $1 + 0 <= b + 0 { n++ } END { print n + 0 }')
assert_eq "one created event for $BREL" 1 "$n"
# the removed cgroup is in no frame after its removal
n=$(awk -F, -v g="$GREL" -v a="$late_r" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } $col["cgroup"] == g && substr($1, 1, length($1) - 6) + 0 > a + 0 { n++ } END { print n + 0 }' "$MCG_TMP/d.csv")
assert_eq "no frame of $GREL after its removal" 0 "$n"

# the same through --json and a cgroup filter: only the workload, its events included
"$MEMCGCTL" dump --store "$STORE" --json "$WREL" >"$MCG_TMP/d.json"
n=$(json '[.cgroups[].cgroup] | unique | join(" ")' <"$MCG_TMP/d.json" | sort -u | tr '\n' ' ')
case $n in *"$GREL"*) fail "filter let $GREL through" ;; esac
n=$(json '.events[] | select(.event == "change" and .op == "set-limit") | .cgroup' <"$MCG_TMP/d.json")
assert_eq "JSON set-limit event" "$WREL" "$n"
assert_le "JSON frames with limit_bytes 67108864" 6 \
	"$(json '.cgroups[] | .limit_bytes' <"$MCG_TMP/d.json" | grep -c '^67108864$')"
# the spool was drained into the store
assert_eq "spool empty" "0" "$(wc -c <"$MEMCGCTL_RUNDIR/history-events" | tr -d ' ')"
