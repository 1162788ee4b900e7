#!/bin/sh
# tiers: v1
# top's A key in a real terminal (tmux): in-process, as 'async-reclaim enable|disable' does. A
# then n changes nothing; on a cgroup without a limit A y shows the command's error on the status
# line and writes nothing; A then y writes the enable file and starts reclaimd, which serves the
# cgroup (its stats file), the outcome on the status line with the view up; A then y again
# removes it and reclaimd exits. All read back from the run directory and /proc.
set -eu
. "$MCG_TESTLIB"
require_cgroups
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed"
[ "$(nproc)" -ge 2 ] || skip "async-reclaim enable refuses a single CPU without --force"

scratch_new topakey
echo $((64 * MIB)) >"$CG/$K_LIMIT"
limit=$(knob "$CG" "$K_LIMIT")
parent=$CG parentrel=$CGREL
# a child without a limit of its own: nothing to stay under, enable refuses it
scratch_new nolim "$parent"
nolimrel=$CGREL
CG=$parent CGREL=$parentrel
# top names no state directory: the default, under the scenario's own run directory
SD="$MEMCGCTL_RUNDIR/async-reclaim"
conf="$SD/$(fname "$CGREL").conf"
# press KEY TEXT: type KEY in the view, then wait until the screen shows TEXT
press() { T send-keys -t top "$1"; wait_for "$2"; }

tmux_session top 160 \
	"env LANG=C.UTF-8 TERM=screen-256color MEMCGCTL_RUNDIR='$MEMCGCTL_RUNDIR' '$MEMCGCTL' top -d 0.3 '$CGREL'; echo \"exit=\$?\" >'$MCG_TMP/status'; sleep 60"
wait_for "memcgctl top - cgroup v1"
wait_for "${CGREL#/}"

# asked first: n cancels, nothing written
press A "enable async-reclaim on $CGREL? (y/N)"
press n "cancelled"
[ ! -e "$conf" ] || fail "an enable file after a cancelled A: $(cat "$conf")"
ok "no enable file after a cancelled A"

# refused (no limit): the command's error on the status line, nothing written
press Down "nolim"
press A "enable async-reclaim on $nolimrel? (y/N)"
press y "cannot enable async reclaim on '$nolimrel': it has no memory limit to stay under"
[ -z "$(ls "$SD"/*.conf 2>/dev/null)" ] || fail "an enable file after a refused A: $(ls "$SD")"
ok "no enable file after a refused A"
press Up "${CGREL#/}"

# A y: enabled in-process, the outcome on the status line (no command run, no Enter asked)
press A "enable async-reclaim on $CGREL? (y/N)"
press y "async reclaim enabled on '$CGREL': high"
if screen | grep -qF "press Enter to return to top"; then fail "A left the view"; fi
[ -f "$conf" ] || fail "no enable file $conf after A"
grep -qx "path $CGREL" "$conf" || fail "the enable file names another cgroup: $(cat "$conf")"
ok "enable file for $CGREL"
pid=$(tr -d " \n" <"$SD/reclaimd.pid")
echo "$pid" >>"$MCG_CLEAN_PIDS"
assert_eq "reclaimd's comm" memcg-reclaimd "$(cat "/proc/$pid/comm")"
screen | grep -qF "reclaimd pid $pid" || { screen >&2; fail "the status line does not name reclaimd $pid"; }
ok "the status line names reclaimd $pid"
# reclaimd serves it: its stats file for the cgroup, written by that daemon
i=0
until grep -qx "pid $pid" "$SD/stats/$(fname "$CGREL")" 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 300 ] && fail "reclaimd $pid wrote no stats for $CGREL"; sleep 0.1
done
ok "reclaimd $pid serves $CGREL"
assert_eq "limit untouched by enable" "$limit" "$(knob "$CG" "$K_LIMIT")"

# the row's ASYNC column (the last) says on, read from that enable file
i=0
until screen | grep -F -- "${CGREL#/} " | grep -qE ' on *$'; do
	i=$((i + 1)); [ $i -gt 300 ] && { screen >&2; fail "the row's ASYNC is not on"; }; sleep 0.1
done
ok "the row's ASYNC is on"
# A again: the row says on, so A asks to disable; y removes the file, reclaimd exits
press A "disable async-reclaim on $CGREL? (y/N)"
press y "async reclaim disabled on '$CGREL'"
[ ! -e "$conf" ] || fail "the enable file is still there after the second A"
ok "enable file removed"
reclaimd_exits "$pid" "after the second A"
quit_view top
assert_eq "limit untouched" "$limit" "$(knob "$CG" "$K_LIMIT")"
reclaimd_log_clean
