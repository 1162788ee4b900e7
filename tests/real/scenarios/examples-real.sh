#!/bin/sh
# tiers: v1
# The README and man-page examples that need a real cgroup (async-reclaim enable and
# disable start and stop reclaimd) run on scratch cgroups named as the examples name them
# (web, db, batch/job-42, ... below a scratch parent), through tests/cli/check-examples.sh;
# reclaimd must have left once the last example disabled the cgroup.
set -eu
. "$MCG_TESTLIB"
require_cgroups
command -v jq >/dev/null || skip "the examples need jq"
[ "$(nproc)" -ge 2 ] || skip "async-reclaim enable refuses a single-CPU machine"

scratch_new examples
parent=$CG prel=$CGREL
for n in web db batch batch/job-42 system.slice system.slice/nginx.service \
	system.slice/backup.service system.slice/web.service; do
	mkdir "$parent/$n"
	echo "$parent/$n" >>"$MCG_CLEAN_CGS"
done
# the async-reclaim examples start from 'set-limit web 320M'
echo $((320 * 1024 * 1024)) >"$parent/web/$K_LIMIT"
SPAWN_NOWAIT=1 spawn_in "$parent/web" sleep 600
pidf="$MEMCGCTL_RUNDIR/async-reclaim/reclaimd.pid"
bash "$MCG_SRCDIR/tests/cli/check-examples.sh" "$MEMCGCTL" "$MCG_SRCDIR" real "$prel" "$SPAWN_PID" ||
	fail "an example failed"
if [ -s "$pidf" ]; then
	pid=$(cat "$pidf")
	echo "$pid" >>"$MCG_CLEAN_PIDS" # the reclaimd these examples started, should it stay
	wait_until "reclaimd $pid exits after the last disable" 10 sh -c "! kill -0 $pid 2>/dev/null"
fi
# disable is idempotent: the examples disabled web, a second disable says so and exits 0
out=$("$MEMCGCTL" async-reclaim disable "$prel/web" --runtime) || fail "a second disable failed"
echo "$out" | grep -q "was not enabled" || fail "a second disable does not say it was not enabled: $out"
ok "the examples needing a real cgroup ran"
