#!/bin/sh
# tiers: v1
# top --replay's timeline in a real terminal (tmux), over a store that record filled while a
# scratch cgroup's limit went from 64M to 32M: under the title the store's first and last
# frame times and a bar with the set-limit marked 'c'; at the first frame nothing is filled,
# n (the event's frame) fills it up to the 'c' and no further, } (the last frame) fills it
# all; blocks in a UTF-8 locale at 160 columns, '#' and '.' in the C locale at 80; no line is
# wider than the terminal; q quits with 0.
set -eu
. "$MCG_TESTLIB"
require_cgroups
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed"

scratch_new timeline
P=$CG PREL=$CGREL
echo $((64 * 1024 * 1024)) >"$P/$K_LIMIT"
STORE="$MCG_TMP/store"
record_start "$PREL" -d 250ms "$PREL"
frames_after "$PREL" 0 4
"$MEMCGCTL" set-limit "$PREL" 32M >/dev/null
assert_eq "limit set" $((32 * 1024 * 1024)) "$(knob "$P" "$K_LIMIT")"
frames_after "$PREL" "$(now_floor)" 4
kill -TERM "$REC" || fail "record died: $(cat "$MCG_TMP/rec.err")"
wait "$REC"
"$MEMCGCTL" dump --store "$STORE" --csv "$PREL" >"$MCG_TMP/d.csv"
first=$(awk -F, 'NR == 2 { print $1 }' "$MCG_TMP/d.csv")
last=$(awk -F, 'END { print $1 }' "$MCG_TMP/d.csv")
hms() { date -d "@$(($1 / 1000000000))" '+%H:%M:%S'; }

# bar: the timeline's cells (between the brackets)
bar() { screen | grep '^timeline ' | sed 's/^[^[]*\[//; s/\].*//'; }
# widest: the longest line in characters (sed counts them in UTF-8; mawk's length() bytes)
widest() { screen | LC_ALL=C.UTF-8 sed 's/./x/g' | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }'; }
# wait_bar ERE WHAT
wait_bar() {
	i=0
	until bar | grep -qE -- "$1"; do
		i=$((i + 1)); [ $i -gt 300 ] && { screen >&2; fail "the timeline never showed $2 (last: '$(bar)')"; }; sleep 0.1
	done
	ok "timeline $2: '$(bar)'"
}
# run LOCALE-ENV SESSION COLS FILL EMPTY
run() {
	rm -f "$MCG_TMP/status"
	tmux_session "$2" "$3" \
		"env $1 TERM=screen-256color '$MEMCGCTL' top --replay --store '$STORE'; echo \"exit=\$?\" >'$MCG_TMP/status'; sleep 60"
	wait_for "memcgctl top --replay"
	wait_for "timeline $(hms "$first") ["
	wait_for "] $(hms "$last")"
	# the first frame: only empty cells and the change
	wait_bar "^[$5]*c[$5c]*\$" "at the first frame"
	T send-keys -t "$2" n
	wait_for "events: change $PREL set-limit"
	# the event's frame: filled up to its mark, empty after
	wait_bar "^[$4]+c[$5c]*\$" "at the set-limit"
	T send-keys -t "$2" '}'
	wait_bar "^[$4]+c[$4c]*\$" "at the last frame"
	assert_le "no line wider than $3 columns" "$(widest)" "$3"
}

run LANG=C.UTF-8 utf 160 '█' '·'
quit_view "top --replay (UTF-8)"
T kill-session -t utf
run LC_ALL=C asc 80 '#' '.'
quit_view "top --replay (C locale)"
