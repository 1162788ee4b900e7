#!/bin/sh
# tiers: v1 v2
# Real cgroups with names memcgctl must not trust (issue 12): a chain of 19 nested cgroups
# with 250-byte names (a path of 4774 bytes, past PATH_MAX: list printed three cgroups under
# one cut path and top recursed until SIGSEGV), a dot-named cgroup holding a process (hidden
# from list/top before), a name carrying a terminal escape (OSC 0), and names with quotes, a
# tab (the kernel refuses a newline in a cgroup name: EINVAL), UTF-8 and a byte that is not
# UTF-8. list and top list every one once at its full
# length, show opens the deepest, record stores them and dump gives them back (JSON: the
# same names; text and CSV: escaped, no ESC, tab or bad byte), record creates nothing
# but its store, text output holds no ESC byte, JSON parses; everything is removed afterwards.
set -eu
. "$MCG_TESTLIB"
require_cgroups

scratch_new long
TOP=$CG
TOPREL=$CGREL
# remove the chain from inside (rmdir of a 4774-byte absolute path is ENAMETOOLONG), then
# lib.sh's cleanup removes the rest
HIDDEN_PID=
# rm_tree: remove every directory below the current one, deepest first, by relative names
# (no -execdir in busybox find)
rm_tree() {
	for d in .[!.]* ..?* *; do
		[ -d "$d" ] && [ ! -L "$d" ] || continue
		(cd -P "./$d" && rm_tree)
		rmdir "./$d" 2>/dev/null
	done
	return 0
}
deep_cleanup() {
	[ -n "$HIDDEN_PID" ] && stop_pid "$HIDDEN_PID"
	[ -d "$TOP" ] && (cd -P "$TOP" && rm_tree)
	return 0
}
trap 's=$?; set +e; deep_cleanup; (exit $s); mcg_cleanup' EXIT

name250() { printf "l%02d" "$1"; printf 'y%.0s' $(seq 247); }
(
	set -e
	cd -P "$TOP"
	i=1
	while [ $i -le 19 ]; do
		n=$(name250 $i)
		if [ "$MCG_CGVER" = 2 ]; then echo +memory >cgroup.subtree_control; fi
		mkdir "$n"
		cd -P "$n" # (-P: dash's logical cd fails past PATH_MAX)
		i=$((i + 1))
	done
) || fail "cannot create the nested cgroups"
if [ "$MCG_CGVER" = 2 ]; then echo +memory >"$TOP/cgroup.subtree_control" 2>/dev/null || true; fi
mkdir "$TOP/.hidden" "$(printf '%s/esc\033]0;pwned\007' "$TOP")" "$(printf '%s/q"uo\047te' "$TOP")" \
	"$(printf '%s/tab\tname' "$TOP")" "$(printf '%s/utf-\303\251\345\220\215' "$TOP")" \
	"$(printf '%s/bad\377' "$TOP")" || fail "cannot create the named cgroups"
NAMED=5 # .hidden excluded: the escape, quotes, tab, UTF-8, the bad byte
SPAWN_NOWAIT=1 spawn_in "$TOP/.hidden" sleep 600
HIDDEN_PID=$SPAWN_PID

"$MEMCGCTL" --json list "$TOPREL" >"$MCG_TMP/list.json" 2>"$MCG_TMP/list.err" ||
	fail "list --json failed: $(cat "$MCG_TMP/list.err")"
# the JSON is the tree: every object with a "cgroup", at any depth
all='[.. | objects | select(has("cgroup"))]'
rows=$(jq "$all | length" "$MCG_TMP/list.json")
distinct=$(jq "[$all[].cgroup] | unique | length" "$MCG_TMP/list.json")
longest=$(jq "[$all[].cgroup | length] | max" "$MCG_TMP/list.json")
want=$(( ${#TOPREL} + 19 * 251 ))
ALL=$((21 + NAMED)) # the scratch cgroup, 19 nested, .hidden and the named ones
assert_eq "list rows (the scratch cgroup, 19 nested, .hidden, the named)" "$ALL" "$rows"
assert_eq "distinct paths in list" "$ALL" "$distinct"
assert_eq "longest path listed (bytes)" "$want" "$longest"
jq -e --arg p "$TOPREL/.hidden" "[$all[] | select(.cgroup == \$p)] | length == 1" "$MCG_TMP/list.json" >/dev/null ||
	fail "the dot-named cgroup is not listed"
ok "list --json: $ALL cgroups once each, the deepest path $longest bytes, .hidden shown"

"$MEMCGCTL" list "$TOPREL" >"$MCG_TMP/list.txt" 2>&1 || fail "list failed"
if grep -q "$(printf '\033')" "$MCG_TMP/list.txt"; then fail "list printed an ESC byte"; fi
grep -q 'esc\\e\]0;pwned\\a' "$MCG_TMP/list.txt" || fail "list did not escape the OSC name: $(cat -v "$MCG_TMP/list.txt" | tail -3)"
ok "list (text): the OSC 0 name escaped"

"$MEMCGCTL" top -b -n 1 --no-taskstats "$TOPREL" >"$MCG_TMP/top.txt" 2>"$MCG_TMP/top.err" ||
	fail "top -b failed ($?): $(tail -3 "$MCG_TMP/top.err")"
if grep -q "$(printf '\033')" "$MCG_TMP/top.txt"; then fail "top -b printed an ESC byte"; fi
"$MEMCGCTL" --json top -n 1 --no-taskstats "$TOPREL" >"$MCG_TMP/top.json" 2>"$MCG_TMP/top.err" ||
	fail "top --json failed: $(tail -3 "$MCG_TMP/top.err")"
assert_eq "top --json rows" "$ALL" "$(jq '.cgroups | length' "$MCG_TMP/top.json")"
assert_eq "top --json longest path" "$want" "$(jq '[.cgroups[].cgroup | length] | max' "$MCG_TMP/top.json")"
procs=$(jq --arg p "$TOPREL/.hidden" '.cgroups[] | select(.cgroup == $p) | .cgroup' "$MCG_TMP/top.json")
[ -n "$procs" ] || fail "top does not show the dot-named cgroup"
ok "top -b and top --json: $ALL rows, no ESC, the deepest path whole"

deepest=$(jq -r "$all | max_by(.cgroup | length) | .cgroup" "$MCG_TMP/list.json")
"$MEMCGCTL" --json show "$deepest" >"$MCG_TMP/show.json" 2>"$MCG_TMP/show.err" ||
	fail "show of the deepest cgroup failed: $(cat "$MCG_TMP/show.err")"
assert_eq "show path" "$deepest" "$(jq -r .cgroup "$MCG_TMP/show.json")"
ok "show opens the $want-byte path"

# record and dump: the names stored and given back, escaped in text; nothing else created
mkdir "$MCG_TMP/out"
LC_ALL=C ls -A "$MCG_TMP" >"$MCG_TMP/out/tmp.before"
(cd -P "$TOP" && find . -type d | LC_ALL=C sort) >"$MCG_TMP/out/cg.before"
"$MEMCGCTL" record --no-oom -n 2 -d 100ms --store "$MCG_TMP/store" "$TOPREL" \
	>"$MCG_TMP/out/rec.out" 2>"$MCG_TMP/out/rec.err" ||
	fail "record failed ($?): $(tail -3 "$MCG_TMP/out/rec.err" | cat -v)"
if grep -q "$(printf '\033')" "$MCG_TMP/out/rec.out" "$MCG_TMP/out/rec.err"; then
	fail "record printed an ESC byte"
fi
(cd -P "$TOP" && find . -type d | LC_ALL=C sort) >"$MCG_TMP/out/cg.after"
cmp -s "$MCG_TMP/out/cg.before" "$MCG_TMP/out/cg.after" || fail "record changed the cgroups"
LC_ALL=C ls -A "$MCG_TMP" >"$MCG_TMP/out/tmp.after"
# its store, and the run directory (lib.sh's MEMCGCTL_RUNDIR) if none was there, holding
# only its events file and locks: no file named after a cgroup
new=$(grep -vxF -f "$MCG_TMP/out/tmp.before" "$MCG_TMP/out/tmp.after" | grep -vx run | tr '\n' ' ')
assert_eq "what record created beside the test's files" "store " "$new"
if [ -d "$MCG_TMP/run" ]; then
	left=$(find "$MCG_TMP/run" -mindepth 1 ! -name history-events ! -name '*.lock' ! -type d)
	[ -z "$left" ] || fail "record left files in the run directory: $(echo "$left" | head -3 | cat -v)"
fi

"$MEMCGCTL" --json dump --store "$MCG_TMP/store" "$TOPREL" >"$MCG_TMP/out/dump.json" \
	2>"$MCG_TMP/out/dump.err" || fail "dump --json failed: $(tail -3 "$MCG_TMP/out/dump.err" | cat -v)"
jq -r "$all[].cgroup" "$MCG_TMP/list.json" | LC_ALL=C sort -u >"$MCG_TMP/out/names.list"
jq -s -r '[.. | objects | select(has("cgroup") and has("usage_bytes")) | .cgroup] | unique | .[]' \
	"$MCG_TMP/out/dump.json" | LC_ALL=C sort -u >"$MCG_TMP/out/names.dump" ||
	fail "dump --json does not parse"
cmp -s "$MCG_TMP/out/names.list" "$MCG_TMP/out/names.dump" ||
	fail "dump --json's cgroups differ from list's: $(diff "$MCG_TMP/out/names.list" "$MCG_TMP/out/names.dump" | head -5 | cat -v)"
for f in csv text; do
	if [ $f = csv ]; then opt=--csv; else opt=; fi
	"$MEMCGCTL" dump $opt --store "$MCG_TMP/store" "$TOPREL" >"$MCG_TMP/out/dump.$f" \
		2>"$MCG_TMP/out/dump.err" || fail "dump $opt failed: $(tail -3 "$MCG_TMP/out/dump.err" | cat -v)"
	if grep -q "$(printf '\033')" "$MCG_TMP/out/dump.$f"; then fail "dump ($f) printed an ESC byte"; fi
	if LC_ALL=C grep -q "$(printf '\377')" "$MCG_TMP/out/dump.$f"; then
		fail "dump ($f) printed the byte that is not UTF-8"
	fi
	if grep -q "$(printf 'tab\tname')" "$MCG_TMP/out/dump.$f"; then fail "dump ($f) printed the tab of a name"; fi
	for n in 'esc\e]0;pwned\a' 'tab\tname' 'bad\xff' "uo'te"; do
		grep -qF "$n" "$MCG_TMP/out/dump.$f" ||
			fail "dump ($f) lacks the escaped name $n: $(grep -n 'tab\|esc\|bad' "$MCG_TMP/out/dump.$f" | head -3 | cat -v)"
	done
done
ok "record and dump (JSON, CSV, text): every name stored and given back, escaped in text, nothing else created"

deep_cleanup
HIDDEN_PID=
[ -d "$TOP/$(name250 1)" ] && fail "the nested cgroups were not removed"
ok "cleaned up"
