#!/bin/sh
# tiers: v1
# top's CONTAINER column in a real terminal (tmux): on the containers fixture (a v2 tree of
# docker, containerd, CRI-O and Kubernetes layouts with their runtimes' state) the live view
# shows it by itself after CGROUP, each cgroup's container by the name its runtime gives it
# (a pod's own cgroup as pod:NAMESPACE/NAME, an unowned one '-'), the name refused by the
# resolver (a docker name with an OSC 52 and a BEL) as the ID's 12 digits and no control
# byte on the screen; C turns it off and on; at 80 columns and in the C locale it is there and
# no line is wider than the terminal. On this host's scratch cgroup, owned by nobody, there is
# no such column and C says why.
set -eu
. "$MCG_TESTLIB"
require_cgroups
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed"

FX="$MCG_TMP/fx"
cp -a "$MCG_SRCDIR/tests/cli/fixtures" "$FX"
cfg=$(ls "$FX"/containers/state/var/lib/docker/containers/aed4*/config.v2.json)
sed -i 's|"Name":"/db"|"Name":"/db\\u001b]52;c;QUFB\\u0007x"|' "$cfg"
grep -qF 'u001b]52' "$cfg" || fail "the fixture's docker name was not made hostile"

# row NAME: the line of the tree row named NAME
row() { screen | grep -E "^ *[-+]? *$1 " | head -1; }
# wait_row NAME TEXT: until NAME's row holds TEXT
wait_row() {
	i=0
	until row "$1" | grep -qF -- "$2"; do
		i=$((i + 1)); [ $i -gt 300 ] && { screen >&2; fail "row $1 never showed '$2'"; }; sleep 0.1
	done
	ok "row $1: $(row "$1" | sed 's/  */ /g')"
}
wait_gone() {
	i=0
	while screen | grep -qF -- "$1"; do
		i=$((i + 1)); [ $i -gt 300 ] && { screen >&2; fail "the screen still shows '$1'"; }; sleep 0.1
	done
	ok "screen no longer shows '$1'"
}
# widest: the longest line in characters (sed counts them in UTF-8; mawk's length() bytes)
widest() { screen | LC_ALL=C.UTF-8 sed 's/./x/g' | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }'; }
view() { # LOCALE-ENV SESSION COLS
	rm -f "$MCG_TMP/status"
	tmux_session "$2" "$3" \
		"env $1 TERM=screen-256color MEMCGCTL_STATE_ROOT='$FX/containers/state' MEMCGCTL_RUNDIR='$MEMCGCTL_RUNDIR' '$MEMCGCTL' --root '$FX/containers/cgroup' --cgroup-version 2 --proc '$FX/v2/proc' top -d 0.3; echo \"exit=\$?\" >'$MCG_TMP/status'; sleep 60"
	wait_for "memcgctl top - cgroup v2"
}

view LANG=C.UTF-8 utf 160
wait_for "CONTAINER"
screen | grep -q '^CGROUP.* CONTAINER ' || fail "CONTAINER is not after CGROUP: $(screen | grep '^CGROUP')"
wait_row redis "containerd:redis"
wait_row "pod4a4a4a4a-0000" "pod:shop/web-0"
wait_row docker " - "
wait_row aed4cebcaf364cb3d8e6 "docker:aed4cebcaf36"
! screen | grep -qF '52;c' || fail "the refused name reached the screen: $(row aed4cebcaf364cb3d8e6)"
T send-keys -t utf C
wait_for "CONTAINER column off"
wait_gone "containerd:redis"
! screen | grep -q '^CGROUP.*CONTAINER' || fail "CONTAINER still in the header after C"
T send-keys -t utf C
wait_row redis "containerd:redis"
T resize-window -t utf -x 80 -y 24
i=0
until [ "$(widest)" -le 80 ] && screen | grep -q '^CGROUP.* CONTAINER '; do
	i=$((i + 1)); [ $i -gt 50 ] && { screen >&2; fail "no CONTAINER column within 80 columns"; }; sleep 0.1
done
wait_row redis "containerd:redis"
ok "CONTAINER at 80 columns, widest line $(widest)"
quit_view "top (UTF-8)"
T kill-session -t utf

view LC_ALL=C asc 80
wait_row redis "containerd:redis"
assert_le "no line wider than 80 columns (C locale)" "$(widest)" 80
quit_view "top (C locale)"
T kill-session -t asc

# a host's cgroup that no container owns: no column, and C says why
scratch_new own
rm -f "$MCG_TMP/status"
tmux_session host 160 \
	"env LANG=C.UTF-8 TERM=screen-256color MEMCGCTL_STATE_ROOT='$MCG_TMP/nostate' MEMCGCTL_RUNDIR='$MEMCGCTL_RUNDIR' '$MEMCGCTL' top -d 0.3 '$CGREL'; echo \"exit=\$?\" >'$MCG_TMP/status'; sleep 60"
wait_for "memcgctl top - cgroup v1 - 1 cgroups"
wait_for "USAGE"
! screen | grep -qF CONTAINER || fail "a CONTAINER column with no container: $(screen | grep '^CGROUP')"
T send-keys -t host C
wait_for "no cgroup shown belongs to a container or a pod"
quit_view "top (host)"
