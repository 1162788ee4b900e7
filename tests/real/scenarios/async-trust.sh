#!/bin/sh
# tiers: v1 v2
# The state directory is trusted only if root owns it and nobody else can write it: one
# owned by uid 65534, one of mode 0777 and a symlink are refused by enable, status and
# reclaimd, naming the directory. In a trusted one, symlinks planted as the temporary,
# log and pid files are replaced, never written through: the file they point to is intact.
set -eu
. "$MCG_TESTLIB"
require_cgroups

scratch_new trust
echo $((64 * MIB)) >"$CG/$K_LIMIT"

mkdir "$MCG_TMP/nobody" "$MCG_TMP/open" "$MCG_TMP/real"
chown 65534 "$MCG_TMP/nobody"
chmod 0777 "$MCG_TMP/open"
ln -s "$MCG_TMP/real" "$MCG_TMP/link"
for d in nobody open link; do
	sd="$MCG_TMP/$d"
	assert_status "enable with $d state dir" 1 "$MEMCGCTL" async-reclaim enable "$CGREL" --state-dir "$sd"
	assert_eq "enable names the $d dir" "memcgctl: cannot use state directory '$sd': not trusted: a symlink, or not a directory owned by root that only root can write" "$LAST_ERR"
	assert_status "status with $d state dir" 1 "$MEMCGCTL" async-reclaim status --state-dir "$sd"
	case $LAST_ERR in "memcgctl: cannot use state directory '$sd'"*) ;; *) fail "status: $LAST_ERR" ;; esac
	assert_status "reclaimd with $d state dir" 1 "$MEMCGCTL" reclaimd --foreground --keep --state-dir "$sd"
	case $LAST_ERR in *"cannot use state directory '$sd'"*) ;; *) fail "reclaimd: $LAST_ERR" ;; esac
	assert_eq "nothing written in the $d dir" "" "$(ls -A "$MCG_TMP/real" "$sd" 2>/dev/null | grep -v -e '^$' -e ':$' || true)"
done

# a trusted directory with links planted where memcgctl writes
mkdir -p "$SD/stats"
victim="$MCG_TMP/victim"
printf 'precious\n' >"$victim"
n=$(fname "$CGREL")
for f in "$n.conf.tmp" "stats/$n.tmp" "stats/reclaimd.tmp" reclaimd.log reclaimd.pid; do
	ln -s "$victim" "$SD/$f"
done
# a check of what is written where, not of the budget: in the TCG guest the default 5% of a
# CPU took the emulated reclaim past the wait below (seen once in CI)
AR enable "$CGREL" --high-margin 16M --low-margin 32M --clean --max-cpu 50 >"$MCG_TMP/enable.out" ||
	fail "enable in a trusted dir with planted links: $(cat "$MCG_TMP/enable.out")"
pid=$(daemon_pid)
echo "$pid" >>"$MCG_CLEAN_PIDS"
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/t" 56 --sync >/dev/null
i=0
while [ ! -f "$SD/stats/$n" ] || [ "$(knob "$CG" "$K_USAGE")" -gt $((48 * MIB)) ]; do
	[ $i -lt 600 ] || fail "reclaimd wrote no stats or did not reclaim: $(cat "$SD/reclaimd.log")"
	sleep 0.1
	i=$((i + 1))
done
ok "reclaimd served the cgroup and wrote its stats"
AR disable "$CGREL" >/dev/null
reclaimd_exits "$pid" "after disable"
assert_eq "the linked-to file is intact" "precious" "$(cat "$victim")"
for f in reclaimd.log; do
	[ -L "$SD/$f" ] && fail "$f is still a link"
done
grep -q "reclaimd $pid serving" "$SD/reclaimd.log" || fail "no log in the replaced reclaimd.log"
ok "links replaced, not followed"
