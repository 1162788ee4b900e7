#!/bin/sh
# tiers: v1
# top's detail pane graph in a real terminal (tmux): a 64 MiB scratch cgroup holding 8 MiB of
# page cache; d opens the detail with a graph whose top is the kernel's limit (64M, its L line
# on the top line); 32 MiB more page cache raises the columns: the lines holding a full cell
# come to the kernel's peak usage in eighths of the limit (within a line); under it a RECL/s
# sparkline labelled with its most; blocks in a UTF-8
# locale at 160 columns, '#' and no block in the C locale at 80; every line fits the terminal.
set -eu
. "$MCG_TESTLIB"
require_cgroups
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed"

scratch_new graph
LIMIT=$((64 * 1024 * 1024))
echo $LIMIT >"$CG/$K_LIMIT"
spawn_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cache" 8 --hold

# graph: the graph's lines (between the detail title and the line saying what a column is)
# pane: the lines between the detail title and the line saying what a column is
pane() { screen | awk '/^ detail/ { f = 1; next } /^       usage: / { f = 0 } f'; }
# graph: its 8 lines of usage; rate: the RECL/s sparkline under them
graph() { pane | head -n 8; }
rate() { pane | sed -n 9p; }
# full FULLCHAR: how many graph lines hold a full cell
full() { graph | grep -cF -- "$1" || true; }
# peak_lines: the kernel's peak usage (v1 max_usage_in_bytes) in eighths of the limit (lines)
peak_lines() { awk -v u="$(cat "$CG/memory.max_usage_in_bytes")" -v l=$LIMIT 'BEGIN { print int(u * 64 / l + 0.5) / 8 }' | cut -d. -f1; }
# widest: the longest line in characters (sed counts them in UTF-8; mawk's length() bytes)
widest() { screen | LC_ALL=C.UTF-8 sed 's/./x/g' | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }'; }
# run_graph LOCALE-ENV SESSION COLS FULLCHAR
run_graph() {
	rm -f "$MCG_TMP/status"
	tmux_session "$2" "$3" \
		"env $1 TERM=screen-256color MEMCGCTL_RUNDIR='$MEMCGCTL_RUNDIR' '$MEMCGCTL' top -d 0.2 '$CGREL'; echo \"exit=\$?\" >'$MCG_TMP/status'; sleep 60"
	wait_for "memcgctl top - cgroup v1 - 1 cgroups"
	wait_for "CGROUP"
	T send-keys -t "$2" d
	wait_for "       usage: "
	graph | head -1 | grep -q '^   64M|LL*$' || { screen >&2; fail "the graph's top is not the kernel's 64M limit: $(graph | head -1)"; }
	ok "top line: $(graph | head -1 | cut -c 1-20)"
	# the RECL/s line is a rate: it comes with the second sample after d, not the first
	i=0
	until [ "$(pane | wc -l)" -ge 9 ]; do
		i=$((i + 1)); [ $i -gt 300 ] && { screen >&2; fail "no RECL/s line under the graph"; }; sleep 0.1
	done
	assert_eq "graph lines and the RECL/s line" 9 "$(pane | wc -l)"
	rate | grep -qE '^ *[0-9.]+[KMGT]?\|' || { screen >&2; fail "no RECL/s line under the graph: '$(rate)'"; }
	ok "RECL/s: '$(rate)'"
	before=$(full "$4")
	run_in "$CG" dd if=/dev/zero of="$MCG_DATA/more.$2" bs=1M count=32 2>/dev/null
	want=$(peak_lines)
	assert_le "the kernel's peak is 5 lines of 8 or more" 4 "$want"
	i=0
	until n=$(full "$4") && [ "$n" -ge $((want - 1)) ] && [ "$n" -le $((want + 1)) ]; do
		i=$((i + 1))
		[ $i -gt 300 ] && { screen >&2; fail "the graph holds $n full lines, the kernel's peak $want"; }
		sleep 0.1
	done
	ok "full lines $before -> $n (kernel's peak: $want of 8)"
	assert_le "no line wider than $3 columns" "$(widest)" "$3"
	T send-keys -t "$2" Escape # q in the detail pane goes back, not out
	wait_gone "       usage: "
}
wait_gone() {
	i=0
	while screen | grep -qF -- "$1"; do
		i=$((i + 1)); [ $i -gt 300 ] && { screen >&2; fail "the screen still shows '$1'"; }; sleep 0.1
	done
	ok "back from the detail pane"
}

run_graph LANG=C.UTF-8 utf 160 '█'
quit_view "top (UTF-8)"
T kill-session -t utf
rm -f "$MCG_DATA"/more.*
# the peak stays: reset it (v1: any write) so the C locale's run measures its own rise
echo 0 >"$CG/memory.max_usage_in_bytes"
run_graph LC_ALL=C asc 80 '#'
! graph | grep -q '[▁▂▃▄▅▆▇█]' || fail "block characters in the C locale"
quit_view "top (C locale)"
rm -f "$MCG_DATA"/more.* "$MCG_DATA/cache"
