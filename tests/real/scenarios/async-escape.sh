#!/bin/sh
# tiers: v1 v2
# A cgroup name with terminal escapes (OSC 52 writes the clipboard) and a tab: enable,
# status and disable print it escaped (no control byte reaches the terminal), the JSON
# carries it exactly, and the enable file stores it encoded, so it reads back as that cgroup.
set -eu
. "$MCG_TESTLIB"
require_cgroups

esc=$(printf 'x\033]52;c;AAAA\007\ty')
scratch_new "$esc"
echo $((64 * MIB)) >"$CG/$K_LIMIT"
no_ctl() { LC_ALL=C tr -d '\n' <"$1" | LC_ALL=C grep -q '[[:cntrl:]]' && fail "$2 prints a control byte: $(od -c "$1" | head -5)"; ok "$2: no control byte"; }

AR enable "$CGREL" --no-start >"$MCG_TMP/enable.txt"
no_ctl "$MCG_TMP/enable.txt" enable
grep -qF 'x\e]52;c;AAAA\a\ty' "$MCG_TMP/enable.txt" || fail "enable does not name the cgroup escaped: $(cat "$MCG_TMP/enable.txt")"
AR status >"$MCG_TMP/status.txt"
no_ctl "$MCG_TMP/status.txt" status
grep -qF 'x\e]52;c;AAAA\a\ty' "$MCG_TMP/status.txt" || fail "status does not name the cgroup escaped: $(cat "$MCG_TMP/status.txt")"
AR status --json >"$MCG_TMP/status.json"
assert_eq "JSON carries the exact name" "$CGREL" "$(jq -r '.cgroups[0].cgroup' "$MCG_TMP/status.json")"
assert_eq "the enable file reads back enabled" true "$(jq -r '.cgroups[0].enabled' "$MCG_TMP/status.json")"
assert_eq "no corrupt file" 0 "$(jq '.corrupt | length' "$MCG_TMP/status.json")"
AR disable "$CGREL" >"$MCG_TMP/disable.txt"
no_ctl "$MCG_TMP/disable.txt" disable
