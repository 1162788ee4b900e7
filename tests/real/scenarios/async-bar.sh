#!/bin/sh
# tiers: v1 v2
# async-reclaim status draws each cgroup's usage against its limit with the watermarks marked:
# on a 64 MiB scratch cgroup holding 16 MiB of page cache, enabled with low 32M and high 48M,
# the C locale's bar has 32 cells, 'l' in cell 16 and 'h' in cell 24, and as many '#' as the
# kernel's usage fills (within a cell: the usage moves between the two reads); in a UTF-8
# locale block characters and no '#'; --raw and --noheadings print no bar.
set -eu
. "$MCG_TESTLIB"
require_cgroups

scratch_new bar
echo $((64 * MIB)) >"$CG/$K_LIMIT"
spawn_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cache" 16 --hold
AR enable "$CGREL" --low 32M --high 48M --no-start >/dev/null

LC_ALL=C AR status "$CGREL" >"$MCG_TMP/st.txt"
usage=$(knob "$CG" "$K_USAGE")
grep -q "usage now against the limit" "$MCG_TMP/st.txt" || fail "no bar: $(cat "$MCG_TMP/st.txt")"
bar=$(grep -F "$CGREL" "$MCG_TMP/st.txt" | grep -o '^  \[[^]]*\]' | sed 's/^  \[//; s/\]$//')
assert_eq "32 cells" 32 "${#bar}"
assert_eq "l (low 32M) in cell 16" 16 "$(printf '%s' "$bar" | awk '{ print index($0, "l") - 1 }')"
assert_eq "h (high 48M) in cell 24" 24 "$(printf '%s' "$bar" | awk '{ print index($0, "h") - 1 }')"
filled=$(printf '%s' "$bar" | tr -cd '#' | wc -c)
# the cells the kernel's usage fills: whole ones, and one at least half full
eighths=$((usage * 256 / (64 * MIB)))
want=$((eighths / 8 + (eighths % 8 >= 4 ? 1 : 0)))
d=$((filled - want))
[ "$d" -ge -1 ] && [ "$d" -le 1 ] || fail "bar '$bar' fills $filled cells, the kernel's usage $usage fills $want"
ok "bar '$bar': $filled cells for usage $usage (kernel: $want)"

# (only where the C.UTF-8 locale is installed: the v2 guest's initramfs has none, and there
# setlocale() falls back to C, where the ASCII bar is right)
if [ -d /usr/lib/locale/C.utf8 ] || [ -d /usr/lib/locale/C.UTF-8 ]; then
	LC_ALL=C.UTF-8 AR status "$CGREL" >"$MCG_TMP/st-utf8.txt"
	ubar=$(grep -F "$CGREL" "$MCG_TMP/st-utf8.txt" | grep -o '^  \[[^]]*\]')
	printf '%s' "$ubar" | grep -q '█' || fail "no block characters in a UTF-8 locale: $ubar"
	! printf '%s' "$ubar" | grep -q '#' || fail "ASCII in a UTF-8 locale: $ubar"
	ok "UTF-8 bar: $ubar"
else
	say "no C.UTF-8 locale here: the UTF-8 bar is not checked"
fi

for o in --raw --noheadings; do
	LC_ALL=C AR status "$CGREL" $o >"$MCG_TMP/st-o.txt"
	! grep -q 'usage now against\|^  \[' "$MCG_TMP/st-o.txt" || fail "a bar with $o: $(cat "$MCG_TMP/st-o.txt")"
done
ok "no bar with --raw or --noheadings"
AR disable "$CGREL" >/dev/null
rm -f "$MCG_DATA/cache"
