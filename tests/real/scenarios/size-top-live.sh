#!/bin/sh
# tiers: v1
# NEED in the live view (issue 26, "a continuous number", top): in a real terminal (tmux,
# 120x40) top on a parent of two shows no NEED column while no answer is kept; once size has
# found one for a child (HOT MiB of page cache read in a loop beside COLD MiB written once),
# the column appears within a few samples, with the same cell top -b -o NEED prints for that
# child and "-" for the sibling without an answer; top exits 0 on q.
set -eu
. "$MCG_TESTLIB"
require_cgroups
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed"
command -v jq >/dev/null || skip "no jq"

HOT=24 COLD=64

scratch_new tneed
PARENT=$CG PREL=$CGREL
scratch_new none "$PARENT"
scratch_new sized "$PARENT"
echo $((1024 * MIB)) >"$CG/$K_LIMIT"
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/hot" $HOT --sync >/dev/null
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cold" $COLD --sync >/dev/null
spawn_in "$CG" "$MCG_LOAD" loop "$MCG_DATA/hot" 50

tmux_session top 120 \
	"env LANG=C.UTF-8 TERM=screen-256color MEMCGCTL_RUNDIR='$MEMCGCTL_RUNDIR' '$MEMCGCTL' top -d 0.3 '$PREL'; echo \"exit=\$?\" >'$MCG_TMP/status'; sleep 60"
wait_for "memcgctl top - cgroup v1 - 3 cgroups"
wait_for "sized"
if screen | grep '^CGROUP' | grep -q ' NEED '; then
	screen >&2
	fail "a NEED column before any answer is kept"
fi
ok "no NEED column while no answer is kept"

assert_status "size" 0 "$MEMCGCTL" size --json --interval 200ms --timeout 90s "$CGREL"
need=$(printf '%s\n' "$LAST_OUT" | json .needed_bytes)
say "size: needed $need"
# the cell top -b prints for it (the same compact size)
assert_status "top -b -o CGROUP,NEED" 0 "$MEMCGCTL" top -b -n 1 --flat -o CGROUP,NEED "$PREL"
cell=$(printf '%s\n' "$LAST_OUT" | awk -v c="$CGREL" '$1 == c { print $2 }')
[ -n "$cell" ] || fail "top -b gives no NEED for $CGREL: $LAST_OUT"

wait_for " NEED "
# the header's NEED column and each row's cell under it (rows: "  name ... NEED USAGE ...")
col() { screen | awk -v n="$1" '
	/^CGROUP/ { for (i = 1; i <= NF; i++) if ($i == "NEED") k = i - 1; next }
	k && $1 == n { print $(k + 1); exit }'; }
shows_cell() { [ "$(col sized)" = "$cell" ]; }
i=0
until shows_cell; do
	i=$((i + 1))
	[ $i -gt 100 ] && { screen >&2; fail "the sized row's NEED is '$(col sized)', not '$cell'"; }
	sleep 0.1
done
ok "live NEED of $CGREL: $cell (as top -b)"
assert_eq "live NEED of the sibling without an answer" "-" "$(col none)"
quit_view "top"
