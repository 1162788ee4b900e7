#!/bin/sh
# tiers: v1
# top --replay over a store that record filled while a scratch cgroup's limit went from 64M to
# 32M: batch mode prints each recorded frame with its own time and the limit the kernel had
# then; in tmux the view shows the sample's time in the header, n jumps to the set-limit
# event (status line, '*' on the row), , and . step back and forth across the change, g goes
# to a time, } to the last sample, and q quits with exit 0. A scratch cgroup named as docker
# names a container's (docker-ID.scope), with a docker state file naming it, is recorded with
# that name; once its cgroup and its state are gone, the batch replay and the view's CONTAINER
# column still show docker:NAME (issue 30), as recorded, while the node has no such name now.
set -eu
. "$MCG_TESTLIB"
require_cgroups

scratch_new replay
P=$CG PREL=$CGREL
echo $((64 * 1024 * 1024)) >"$P/$K_LIMIT"
scratch_new kid "$P"
# the container: its cgroup and the state docker writes for it (root's, as the reader trusts)
CID=$(printf 'history-replay-%s' "$$" | sha256sum | cut -c1-64)
ST="$MCG_TMP/state"
mkdir -p "$ST/var/lib/docker/containers/$CID"
printf '{"ID":"%s","Name":"/replay-web","State":{"Running":true,"Pid":1},"Config":{"Labels":{}}}\n' \
	"$CID" >"$ST/var/lib/docker/containers/$CID/config.v2.json"
export MEMCGCTL_STATE_ROOT="$ST"
scratch_new "docker-$CID.scope" "$P"
C=$CG CREL=$CGREL
"$MEMCGCTL" top -b -n 1 -o CGROUP,CONTAINER "$PREL" | grep -qE "^$CREL +docker:replay-web *\$" ||
	fail "live top does not name the container: $("$MEMCGCTL" top -b -n 1 -o CGROUP,CONTAINER "$PREL")"
STORE="$MCG_TMP/store"
record_start "$PREL" -d 250ms "$PREL"
frames_after "$PREL" 0 5
"$MEMCGCTL" set-limit "$PREL" 32M >/dev/null
assert_eq "limit set" $((32 * 1024 * 1024)) "$(knob "$P" "$K_LIMIT")"
frames_after "$PREL" "$(now_floor)" 5
kill -TERM "$REC" || fail "record died: $(cat "$MCG_TMP/rec.err")"
wait "$REC"
# the container is gone: its cgroup (empty: nothing was started in it) and its state
rmdir "$C" || fail "cannot remove $C"
rm -rf "${ST:?}/var"
[ ! -d "$C" ] || fail "$C still there"

# the frames' times and the parent's limit in each (from dump)
"$MEMCGCTL" dump --store "$STORE" --csv "$PREL" >"$MCG_TMP/d.csv"
awk -F, -v c="$PREL" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["cgroup"] == c && $col["event"] == "" { print $1, $col["limit_bytes"] }' "$MCG_TMP/d.csv" >"$MCG_TMP/frames"
first=$(head -n 1 "$MCG_TMP/frames" | awk '{ print $1 }')
last=$(tail -n 1 "$MCG_TMP/frames" | awk '{ print $1 }')
after=$(awk '$2 == 33554432 { print $1; exit }' "$MCG_TMP/frames")
[ -n "$after" ] || fail "no frame with the new limit"
assert_le "frames recorded" 8 "$(wc -l <"$MCG_TMP/frames")"

# batch: the first frame, then the first one at or after the change
"$MEMCGCTL" top -b --replay --store "$STORE" -n 1 >"$MCG_TMP/b1"
grep -q "^memcgctl top --replay: " "$MCG_TMP/b1" || fail "no replay header: $(head -1 "$MCG_TMP/b1")"
grep -E "^$PREL +" "$MCG_TMP/b1" | grep -q ' 64M ' || fail "first frame: no 64M: $(cat "$MCG_TMP/b1")"
ok "batch replay: first frame has the 64M limit"
"$MEMCGCTL" top -b --replay --store "$STORE" -n 1 -o CGROUP,CONTAINER >"$MCG_TMP/b1c"
grep -qE "^$CREL +docker:replay-web *\$" "$MCG_TMP/b1c" ||
	fail "batch replay: the gone container is not named as recorded: $(cat "$MCG_TMP/b1c")"
ok "batch replay: the gone container is docker:replay-web, as recorded"
"$MEMCGCTL" --json top --replay --store "$STORE" --at "@$((after / 1000000000))" -n 20 >"$MCG_TMP/b2.json"
got=$(json "select(.timestamp_ns == $after) | .cgroups[] | select(.cgroup == \"$PREL\") | .limit_bytes" \
	<"$MCG_TMP/b2.json")
assert_eq "JSON replay: the frame after the change, with its own timestamp_ns" 33554432 "$got"

command -v tmux >/dev/null 2>&1 || skip "tmux is not installed (batch replay passed)"
tmux_session rp 140 \
	"env LANG=C.UTF-8 TERM=screen-256color '$MEMCGCTL' top --replay --store '$STORE'; echo \"exit=\$?\" >'$MCG_TMP/status'; sleep 60"
when() { date -d "@$(($1 / 1000000000))" '+%Y-%m-%d %H:%M:%S %Z'; }
prow() { screen | grep -A1 '^CGROUP' | tail -1; }

wait_for "memcgctl top --replay - $(when "$first")"
prow | grep -q ' 64M ' || { screen >&2; fail "first frame: parent row has no 64M"; }
ok "first frame: 64M"
# the CONTAINER column by itself, on the container's row, with the recorded name
screen | grep -q '^CGROUP.* CONTAINER ' || { screen >&2; fail "no CONTAINER column in the replay"; }
screen | grep -E "docker-$(printf %.12s "$CID")" | grep -qF 'docker:replay-web' ||
	{ screen >&2; fail "the replay view does not name the gone container as recorded"; }
ok "replay view: the gone container's row shows docker:replay-web"
# n: the sample with the set-limit event
T send-keys -t rp n
wait_for "events: change $PREL set-limit"
prow | grep -q '^\*' || { screen >&2; fail "the event's row is not marked"; }
prow | grep -q ' 32M ' || { screen >&2; fail "event frame: no 32M"; }
ok "event frame: marked row with 32M"
# , steps back before the change, . forward again. The event's frame is the sample record stored
# it in: on a loaded machine a sample taken between set-limit's write and the event's arrival
# already shows 32M, so the 64M sample before the change can be more than one step back (at
# most as many as there are 32M frames); . then steps forward over it to the first 32M frame.
n32=$(awk '$2 == 33554432' "$MCG_TMP/frames" | wc -l)
n64=$(awk '$2 == 67108864' "$MCG_TMP/frames" | wc -l)
# step KEY LIMIT MAX: press KEY until the parent's row shows LIMIT, at most MAX times
step() {
	st_n=0
	while [ $st_n -lt "$3" ]; do
		T send-keys -t rp "$1"
		st_n=$((st_n + 1))
		i=0
		while [ $i -lt 30 ]; do
			prow | grep -q " $2 " && return 0
			i=$((i + 1))
			sleep 0.1
		done
	done
	screen >&2
	fail "'$1' pressed $3 times did not reach the $2 sample"
}
step , 64M "$n32"
ok ", steps back to the 64M sample"
step . 32M "$n64"
ok ". steps to the 32M sample"
# } goes to the last sample; g to a time
T send-keys -t rp '}'
wait_for "memcgctl top --replay - $(when "$last")"
T send-keys -t rp g
wait_for "go to"
T send-keys -t rp "@$((first / 1000000000))" Enter
wait_for "memcgctl top --replay - $(when "$first")"
# actions are refused on the past
T send-keys -t rp L
wait_for "replay: the recorded past cannot be changed"
assert_eq "limit untouched by the replay" $((32 * 1024 * 1024)) "$(knob "$P" "$K_LIMIT")"
quit_view "top --replay"
