#!/bin/sh
# tiers: v1 v2
# Bad input to set-limit: a clear message naming what was wrong, exit 64 (usage) or 1, and
# nothing changed (every limit read back), no journal left.
set -eu
. "$MCG_TESTLIB"
require_cgroups
scratch_new badin
scratch_new unlimited
FREE=$CG FREEREL=$CGREL
scratch_new lim
echo 268435456 >"$CG/$K_LIMIT"
if [ "$MCG_CGVER" = 2 ]; then UNLIM=max; else UNLIM=$V1_MAX; fi
unchanged() {
	assert_eq "$1: limit unchanged" 268435456 "$(knob "$CG" "$K_LIMIT")"
	assert_eq "$1: unlimited cgroup unchanged" "$UNLIM" "$(knob "$FREE" "$K_LIMIT")"
}
# bad SIZE [message]
bad() {
	assert_status "size '$1'" 64 "$MEMCGCTL" set-limit "$CGREL" "$1"
	echo "$LAST_ERR" | grep -q "invalid size for SIZE: '$1'" || fail "message for '$1': $LAST_ERR"
	[ -z "${2:-}" ] || echo "$LAST_ERR" | grep -q "$2" || fail "message for '$1': $LAST_ERR"
	unchanged "size '$1'"
}
bad 12X "unknown suffix"
bad abc "not a number"
bad 1.5 "fractional bytes"
bad 1.5.5G
bad 1,5G
bad 1e9
bad 101% "percentage above 100%"
bad 10%x
bad ++1M
bad 99999999999999999999 "too large"
bad 16E "too large"
bad -1G "the result would be negative"
bad -256M1
assert_status "empty size" 64 "$MEMCGCTL" set-limit "$CGREL" ""
unchanged "empty size"
assert_status "relative to no limit" 64 "$MEMCGCTL" set-limit "$FREEREL" +1M
echo "$LAST_ERR" | grep -q "needs a current limit, which is max" || fail "message: $LAST_ERR"
unchanged "relative to max"
assert_status "bad --high" 64 "$MEMCGCTL" set-limit "$CGREL" --swap 12Q
echo "$LAST_ERR" | grep -q "invalid size for --swap: '12Q'" || fail "message: $LAST_ERR"
assert_status "--step 0" 64 "$MEMCGCTL" set-limit "$CGREL" 128M --step 0
assert_status "--step bad" 64 "$MEMCGCTL" set-limit "$CGREL" 128M --step 1X
assert_status "--step max" 64 "$MEMCGCTL" set-limit "$CGREL" 128M --step max
assert_status "--timeout 0" 64 "$MEMCGCTL" set-limit "$CGREL" 128M --timeout 0
assert_status "--timeout negative" 64 "$MEMCGCTL" set-limit "$CGREL" 128M --timeout -1
assert_status "--timeout unit" 64 "$MEMCGCTL" set-limit "$CGREL" 128M --timeout 5y
echo "$LAST_ERR" | grep -q "invalid duration for --timeout: '5y'" || fail "message: $LAST_ERR"
assert_status "no size" 64 "$MEMCGCTL" set-limit "$CGREL"
assert_status "no arguments" 64 "$MEMCGCTL" set-limit
assert_status "too many arguments" 64 "$MEMCGCTL" set-limit "$CGREL" 1M 2M
assert_status "unknown option" 64 "$MEMCGCTL" set-limit "$CGREL" 128M --hihg 1M
unchanged "options"

assert_status "unknown cgroup" 64 "$MEMCGCTL" set-limit "$CGREL-nope" 128M
echo "$LAST_ERR" | grep -q "cannot open cgroup '$CGREL-nope': no such cgroup" || fail "message: $LAST_ERR"
assert_status "root cgroup" 64 "$MEMCGCTL" set-limit / 128M
echo "$LAST_ERR" | grep -q "cannot set limits of the root cgroup" || fail "message: $LAST_ERR"
if [ "$MCG_CGVER" = 2 ]; then
	assert_status "--soft on v2" 64 "$MEMCGCTL" set-limit "$CGREL" 128M --soft 64M
	echo "$LAST_ERR" | grep -q "soft_limit_in_bytes exists only on cgroup v1" || fail "message: $LAST_ERR"
else
	for o in high low min; do
		assert_status "--$o on v1" 64 "$MEMCGCTL" set-limit "$CGREL" 128M --$o 64M
		echo "$LAST_ERR" | grep -q "memory.$o exists only on cgroup v2" || fail "message: $LAST_ERR"
	done
	assert_status "--allow-oom on v1" 64 "$MEMCGCTL" set-limit "$CGREL" 128M --allow-oom
fi
unchanged "version"

# not root: the kernel's permission check, reported before any lock or journal
{
	chmod 755 "$MCG_TMP"
	assert_status "as nobody" 1 "$MCG_LOAD" exec-as 65534 65534 \
		env MEMCGCTL_RUNDIR="$MCG_TMP/nobody-run" "$MEMCGCTL" set-limit "$CGREL" 128M
	echo "$LAST_ERR" | grep -q "cannot set $K_LIMIT of '$CGREL': Permission denied" || fail "message: $LAST_ERR"
	unchanged "nobody"
	[ ! -e "$MCG_TMP/nobody-run/journal" ] || [ -z "$(ls "$MCG_TMP/nobody-run/journal")" ] || fail "journal by nobody"
}
[ -z "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)" ] || fail "journal left"
ok "no journal left"
