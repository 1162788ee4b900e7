#!/bin/sh
# tiers: v1
# The live view in a real terminal (tmux, 120x40, C.UTF-8): header and a scratch cgroup's row
# with the kernel's limit, keys for sort, filter, detail, help and quit, a resize; top exits 0
# and leaves the alternate screen (the terminal is restored).
set -eu
. "$MCG_TESTLIB"
require_cgroups
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed"

scratch_new tmux
echo $((64 * 1024 * 1024)) >"$CG/$K_LIMIT"
parent=$CG parentrel=$CGREL
scratch_new kid "$parent"
echo $((32 * 1024 * 1024)) >"$CG/$K_LIMIT"
spawn_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cache" 8 --hold

tmux_session top 120 \
	"env LANG=C.UTF-8 TERM=screen-256color MEMCGCTL_RUNDIR='$MEMCGCTL_RUNDIR' '$MEMCGCTL' top -d 0.3 '$parentrel'; echo \"exit=\$?\" >'$MCG_TMP/status'; sleep 60"
wait_for "memcgctl top - cgroup v1 - 2 cgroups"
wait_for "memory: total"
assert_eq "alternate screen while running" 1 "$(T display -p -t top '#{alternate_on}')"
# the kid's row: its name and the limit the kernel has (32M), the parent's 64M
limit_kid=$(knob "$CG" "$K_LIMIT")
assert_eq "kernel limit of the kid" $((32 * 1024 * 1024)) "$limit_kid"
wait_for "kid"
row=$(screen | grep -E '^ +kid ')
echo "$row" | grep -q ' 32M ' || fail "kid row has no 32M limit: $row"
ok "kid row: $row"
# the parent is the first row under the column header
screen | grep -A1 '^CGROUP' | tail -1 | grep -q ' 64M ' || { screen >&2; fail "parent row has no 64M limit"; }
ok "parent row has the 64M limit"
# a row with a %LIM bar ends where the header's last column ends (the bar and the header's
# blank under it are as wide: a bar one cell wider pushed the last column off a 120-column row)
hdr_end=$(screen | grep '^CGROUP' | sed 's/ *$//' | awk '{ print length($0) }')
# characters, not bytes: the usage trend is block characters (mawk's length() counts bytes)
row_end=$(screen | grep -A1 '^CGROUP' | tail -1 | sed 's/ *$//' | tr -d '\n' | LC_ALL=C.UTF-8 wc -m)
assert_eq "the parent row (with a bar) ends under the header's last column" "$hdr_end" "$row_end"
# usage column: the kid holds ~8 MiB of page cache
echo "$row" | awk '{ print $2 }' | grep -qE '^[0-9.]+M$' || fail "kid usage is not in MiB: $row"

# sort: > moves the sort marker to USAGE; r reverses it (^)
T send-keys -t top '>'
wait_for "USAGEv"
T send-keys -t top 'r'
wait_for "USAGE^"
# filter as you type
T send-keys -t top '/' k i d Enter
wait_for "filter: kid"
T send-keys -t top '/' BSpace BSpace BSpace Enter
i=0
while screen | grep -qF "filter: kid"; do
	i=$((i + 1)); [ $i -gt 50 ] && fail "filter not cleared"; sleep 0.1
done
ok "filter cleared"
# detail of the selected cgroup (the first row: the parent)
T send-keys -t top d
wait_for "detail"
wait_for "cgroup $parentrel (cgroup v1)"
wait_for "memory.stat:"
T send-keys -t top Escape
wait_for "CGROUP"
# help
T send-keys -t top h
wait_for "keys:"
wait_for "sort by the next / previous column"
T send-keys -t top Escape
wait_for "CGROUP"
# an action asks first: L, a size, Enter, then n cancels
T send-keys -t top L
wait_for "new limit for $parentrel"
T send-keys -t top 1 0 M Enter
wait_for "set the limit of $parentrel to 10M? (y/N)"
T send-keys -t top n
wait_for "cancelled"
assert_eq "limit after cancel" $((64 * 1024 * 1024)) "$(knob "$parent" "$K_LIMIT")"
# confirmed with a bad size: the command runs outside curses, fails, its error stays on the
# screen until Enter, and top carries on (before set-limit exists, its absence is the error)
T send-keys -t top L b o g u s Enter
wait_for "set the limit of $parentrel to bogus? (y/N)"
T send-keys -t top y
wait_for "press Enter to return to top"
screen | grep -F "set-limit -- $parentrel bogus" >/dev/null || { screen >&2; fail "the command line (with -- before the cgroup) is not shown"; }
screen | grep -E '^\[exit status [1-9]' >/dev/null || { screen >&2; fail "no failing exit status shown"; }
ok "the failed command and its status are shown"
T send-keys -t top Enter
wait_for "memcgctl set-limit: failed"
assert_eq "limit after the failed action" $((64 * 1024 * 1024)) "$(knob "$parent" "$K_LIMIT")"
# the actions run in-process (mcg_limit_apply, mcg_empty_run): L 48M y sets the parent's
# limit, read back from the kernel; then put back here (the scratch cgroup is ours)
T send-keys -t top L 4 8 M Enter
confirmed_action "set-limit 48M" "set the limit of $parentrel to 48M? (y/N)" "memcgctl set-limit: done"
assert_eq "limit after the action" $((48 * 1024 * 1024)) "$(knob "$parent" "$K_LIMIT")"
echo $((64 * 1024 * 1024)) >"$parent/$K_LIMIT"
# E y empties the parent: exit status 0, and the limit is the one it found (v1 steps it and back)
T send-keys -t top E
confirmed_action empty "empty $parentrel (reclaim all its memory)? (y/N)" "memcgctl empty: done"
assert_eq "limit after empty" $((64 * 1024 * 1024)) "$(knob "$parent" "$K_LIMIT")"
# resize: the view redraws to the new width
T resize-window -t top -x 80 -y 24
i=0
until [ "$(screen | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')" -le 80 ] &&
	screen | grep -qF "memcgctl top - cgroup v1"; do
	i=$((i + 1)); [ $i -gt 50 ] && { screen >&2; fail "no redraw at 80x24"; }; sleep 0.1
done
ok "redrawn at 80x24"
wait_for "kid"
# quit: exit status 0 and the terminal is back from the alternate screen
quit_view top
# nothing changed: the limits are what we set
assert_eq "parent limit unchanged" $((64 * 1024 * 1024)) "$(knob "$parent" "$K_LIMIT")"
assert_eq "kid limit unchanged" $((32 * 1024 * 1024)) "$(knob "$CG" "$K_LIMIT")"
