#!/bin/sh
# tiers: v1
# top's usage trend (a sparkline after USAGE) in a real terminal (tmux): at 160 columns in a
# UTF-8 locale a TREND column of block characters, flat (the middle block) while the kernel's
# usage holds, and after 32 MiB more page cache from the lowest block to the highest; the row
# still ends under the header's last column; at 80 columns no TREND (the columns keep their
# room); in the C locale the same in ASCII (flat '-', rising from '_' to '#'); top exits 0.
set -eu
. "$MCG_TESTLIB"
require_cgroups
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed"

scratch_new trend
echo $((256 * 1024 * 1024)) >"$CG/$K_LIMIT"
spawn_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cache" 8 --hold

# trend: the trend cells of the scratch cgroup's row (the first under the header)
trend() { screen | grep -A1 '^CGROUP' | tail -1 | awk '{ print $3 }'; }
# wait_trend ERE WHAT: until the row's trend matches ERE (30 s)
wait_trend() {
	i=0
	until trend | grep -qE -- "$1"; do
		i=$((i + 1))
		[ $i -gt 300 ] && { screen >&2; fail "the trend never showed $2 (last: '$(trend)')"; }
		sleep 0.1
	done
	ok "trend $2: '$(trend)'"
}
# run_view LOCALE-ENV SESSION: top -d 0.2 on the scratch cgroup in a 160-column tmux
run_view() {
	rm -f "$MCG_TMP/status"
	tmux_session "$2" 160 \
		"env $1 TERM=screen-256color MEMCGCTL_RUNDIR='$MEMCGCTL_RUNDIR' '$MEMCGCTL' top -d 0.2 '$CGREL'; echo \"exit=\$?\" >'$MCG_TMP/status'; sleep 60"
	wait_for "memcgctl top - cgroup v1 - 1 cgroups"
	wait_for "TREND"
}
# rise LOW HIGH: 32 MiB more page cache in the cgroup; the trend goes from LOW to HIGH
rise() {
	before=$(knob "$CG" "$K_USAGE")
	run_in "$CG" dd if=/dev/zero of="$MCG_DATA/more.$1" bs=1M count=32 2>/dev/null
	after=$(knob "$CG" "$K_USAGE")
	assert_le "the kernel's usage rose by 24 MiB or more" $((before + 24 * 1024 * 1024)) "$after"
	wait_trend "^$2.*$3\$" "rising to the kernel's new usage"
}

run_view LANG=C.UTF-8 utf
# eight samples of a usage that holds: eight middle blocks
wait_trend '^(▄){8}$' "flat while the usage holds"
rise utf '▁' '█'
hdr_end=$(screen | grep '^CGROUP' | sed 's/ *$//' | awk '{ print length($0) }')
row=$(screen | grep -A1 '^CGROUP' | tail -1 | sed 's/ *$//')
row_end=$(printf '%s' "$row" | LC_ALL=C.UTF-8 wc -m) # characters, not bytes (mawk counts bytes)
assert_eq "the row with its trend ends under the header's last column" "$hdr_end" "$row_end"
T resize-window -t utf -x 80 -y 24
i=0
until [ "$(screen | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')" -le 80 ] &&
	screen | grep -q '^CGROUP' && ! screen | grep -qF TREND; do
	i=$((i + 1)); [ $i -gt 50 ] && { screen >&2; fail "TREND still shown at 80 columns"; }; sleep 0.1
done
ok "no TREND at 80 columns"
quit_view "top (UTF-8)"
T kill-session -t utf

rm -f "$MCG_DATA"/more.*
run_view LC_ALL=C asc
wait_trend '^-{8}$' "flat while the usage holds (ASCII)"
rise asc '_' '#'
! screen | grep -q '[▁▂▃▄▅▆▇█]' || fail "block characters in the C locale"
quit_view "top (C locale)"
rm -f "$MCG_DATA"/more.* "$MCG_DATA/cache"
