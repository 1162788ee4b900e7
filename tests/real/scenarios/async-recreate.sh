#!/bin/sh
# tiers: v1 v2
# A cgroup removed and made again under the same path while reclaimd runs, then enabled
# anew: the daemon must not undo the new enable (it holds the removed cgroup's files and
# used to delete the new enable file ~3 s later). It serves the new cgroup: the conf is
# still there after 4 s, and the new cgroup's usage is brought under its high watermark.
set -eu
. "$MCG_TESTLIB"
require_cgroups

OPTS="--high-margin 16M --low-margin 32M --clean --max-cpu 100"

scratch_new again
echo $((64 * MIB)) >"$CG/$K_LIMIT"
AR enable "$CGREL" $OPTS >/dev/null
pid=$(daemon_pid)
echo "$pid" >>"$MCG_CLEAN_PIDS"
[ "$pid" -gt 0 ] 2>/dev/null || fail "reclaimd did not start"
conf="$SD/$(fname "$CGREL").conf"
old_ino=$(stat -c %i "$CG")

# Hold the daemon still while the cgroup is removed, made again and enabled anew, so that
# it meets all three at once when it runs again (as a slow daemon would).
kill -STOP "$pid"
rmdir "$CG" || { kill -CONT "$pid"; fail "cannot remove $CG"; }
mkdir "$CG" || { kill -CONT "$pid"; fail "cannot make $CG again"; }
echo $((64 * MIB)) >"$CG/$K_LIMIT"
new_ino=$(stat -c %i "$CG")
AR enable "$CGREL" $OPTS --no-start >/dev/null
kill -CONT "$pid"
say "cgroup inode $old_ino -> $new_ino"
sleep 4
[ -f "$conf" ] || fail "the new enable file was removed: $(tail -5 "$SD/reclaimd.log")"
ok "the new enable file is still there after 4 s"
assert_eq "still enabled" true "$(AR status --json "$CGREL" | jq -r '.cgroups[0].enabled')"
kill -0 "$pid" 2>/dev/null || fail "reclaimd exited: $(tail -5 "$SD/reclaimd.log")"
ok "reclaimd $pid still runs"

# the daemon serves the new cgroup
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/a" 56 --sync >/dev/null
usage_under "$CG" $((48 * MIB)) "the new cgroup is brought under high"
i=0
while [ "$(AR status --json "$CGREL" | jq -r '.cgroups[0].reclaimed_bytes // 0')" = 0 ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
assert_le "reclaimd reports reclaiming in the new cgroup" $((1 * MIB)) "$(AR status --json "$CGREL" | jq -r '.cgroups[0].reclaimed_bytes // 0')"

AR disable "$CGREL" >/dev/null
reclaimd_exits "$pid" "after the last disable"
assert_eq "limit of the new cgroup" $((64 * MIB)) "$(knob "$CG" "$K_LIMIT")"
reclaimd_log_clean
