#!/bin/sh
# tiers: v1 v2
# Issue 12 for journals and locks: a planted .tmp symlink is never written through; a run
# directory owned by another user or writable by others is refused; journals naming a knob
# memcgctl never writes (cgroup.procs, release_agent), the root cgroup, another cgroup's
# file name, or holding garbage are reported, moved aside (kept) and never restored, and
# stop blocking the cgroup; a journal of a cgroup removed and made again is dropped.
set -eu
. "$MCG_TESTLIB"
require_cgroups
scratch_new trust
RUN=$MEMCGCTL_RUNDIR
J=$RUN/journal
# the journal's file name: the hierarchy path with % and / escaped
jname() { case $1 in /) r=$MCG_CGROOT ;; *) r=$MCG_CGROOT$1 ;; esac; printf '%s' "$r" | sed 's/%/%25/g; s|/|%2f|g'; }
NAME=$(jname "$CGREL")
assert_status "limit 512M (makes the run dir)" 0 "$MEMCGCTL" set-limit "$CGREL" 512M

# 1. a symlinked .tmp where the journal is written: replaced, the target untouched
printf 'precious\n' >"$MCG_TMP/victim"
ln -s "$MCG_TMP/victim" "$J/$NAME.journal.tmp"
assert_status "set-limit with a planted .tmp link" 0 "$MEMCGCTL" set-limit "$CGREL" 256M
assert_eq "the link's target is untouched" precious "$(cat "$MCG_TMP/victim")"
assert_eq "limit" 268435456 "$(knob "$CG" "$K_LIMIT")"
assert_eq "no journal or .tmp left" "" "$(ls -A "$J")"

# 2. untrusted run directories: refused with a clear error, nothing written
chown 65534 "$RUN"
assert_status "run dir owned by uid 65534" 1 "$MEMCGCTL" set-limit "$CGREL" 128M
echo "$LAST_ERR" | grep -q "cannot use run directory '$RUN': not trusted" || fail "message: $LAST_ERR"
assert_status "recover with it" 1 "$MEMCGCTL" recover
chown 0 "$RUN"
chmod 0777 "$RUN"
assert_status "world-writable run dir" 1 "$MEMCGCTL" empty "$CGREL"
echo "$LAST_ERR" | grep -q "cannot use run directory '$RUN': not trusted" || fail "message: $LAST_ERR"
chmod 0755 "$RUN"
assert_eq "limit unchanged" 268435456 "$(knob "$CG" "$K_LIMIT")"
# a read-only command does not make a missing run dir
assert_status "recover without a run dir" 0 env MEMCGCTL_RUNDIR="$MCG_TMP/none" "$MEMCGCTL" recover
[ ! -e "$MCG_TMP/none" ] || fail "recover made a run directory"
ok "recover made no run directory"

# 3. planted journals: corrupt, moved aside, nothing written
ino=$(stat -c %i "$CG")
dev=$(stat -c %d "$CG")
plant() { # file knob value path
	printf 'memcgctl-journal 2\nop set-limit\npid 1\nversion %s\ndev %s\nino %s\nroot %s\npath %s\nknob %s %s 00000000000000000000 00000000000000000000\n' \
		"$MCG_CGVER" "$dev" "$ino" "$MCG_CGROOT" "$4" "$2" "$3" >"$J/$1"
}
corrupt_round() { # what file
	assert_status "recover: $1" 1 "$MEMCGCTL" recover
	echo "$LAST_ERR" | grep -q "corrupt journal '$J/$2'" || fail "$1: message: $LAST_ERR"
	echo "$LAST_ERR" | grep -q "moved it aside to '$J/$2.corrupt-" || fail "$1: message: $LAST_ERR"
	ok "$1: $LAST_ERR"
	[ ! -e "$J/$2" ] || fail "$1: the journal is still in the way"
	ls "$J" | grep -q "^$2.corrupt-" || fail "$1: not kept for inspection"
	rm -f "$J"/*.corrupt-*
}
procs=$(cat "$CG/cgroup.procs" | wc -l)
plant "$NAME.journal" cgroup.procs 1 "$CGREL"
corrupt_round "a journal naming cgroup.procs" "$NAME.journal"
assert_eq "no task moved" "$procs" "$(cat "$CG/cgroup.procs" | wc -l)"
if [ "$MCG_CGVER" = 1 ] && [ -r "$MCG_CGROOT/release_agent" ]; then
	ra=$(cat "$MCG_CGROOT/release_agent")
	plant "$(jname /).journal" release_agent /tmp/x /
	corrupt_round "a journal naming release_agent on the root" "$(jname /).journal"
	assert_eq "release_agent unchanged" "$ra" "$(cat "$MCG_CGROOT/release_agent")"
fi
plant "$(jname /).journal" "$K_LIMIT" 4096 /
corrupt_round "a journal naming the root cgroup" "$(jname /).journal"
plant "other.journal" "$K_LIMIT" 4096 "$CGREL"
corrupt_round "a journal under another name" "other.journal"
assert_eq "limit unchanged" 268435456 "$(knob "$CG" "$K_LIMIT")"

# 4. garbage: recover reports it; then set-limit is not blocked by it
printf 'garbage\n' >"$J/$NAME.journal"
assert_status "recover --dry-run: garbage" 1 "$MEMCGCTL" recover --dry-run
[ -e "$J/$NAME.journal" ] || fail "a dry run moved the journal"
corrupt_round "garbage" "$NAME.journal"
: >"$J/$NAME.journal"
assert_status "set-limit after an empty journal" 0 "$MEMCGCTL" set-limit "$CGREL" 192M
echo "$LAST_ERR" | grep -q "corrupt journal '$J/$NAME.journal': empty file; moved it aside" || fail "message: $LAST_ERR"
assert_eq "limit set" 201326592 "$(knob "$CG" "$K_LIMIT")"
rm -f "$J"/*.corrupt-*

# 5. a journal of the cgroup before it was removed and made again: dropped, not restored
plant "$NAME.journal" "$K_LIMIT" 1048576 "$CGREL"
# (a valid journal of this very cgroup, as a killed run leaves it; then the cgroup is remade)
rmdir "$CG"
mkdir "$CG"
echo 100M >"$CG/$K_LIMIT"
assert_status "recover after rmdir+mkdir" 0 "$MEMCGCTL" recover
echo "$LAST_OUT" | grep -q "was removed and made again" || fail "message: $LAST_OUT"
ok "$LAST_OUT"
assert_eq "the new cgroup's limit stays" 104857600 "$(knob "$CG" "$K_LIMIT")"
assert_eq "no journal left" "" "$(ls -A "$J")"
