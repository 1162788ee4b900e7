#!/bin/sh
# tiers: v1
# A real podman container (rootful, the cgroupfs manager, from a busybox image imported here):
# memcgctl resolves it by name and by ID prefix to the cgroup the kernel has, reads its limit,
# sets one through podman:NAME that the kernel file then holds, shows it in list, top and export,
# records it (dump names the container after podman removed it), and
# refuses a name podman does not have (64). Skips (77) where podman cannot run a container.
set -eu
. "$MCG_TESTLIB"
require_cgroups
command -v podman >/dev/null 2>&1 || skip "podman is not installed (apt-get install podman runc)"
bb=$(command -v busybox || true)
[ -n "$bb" ] && ! ldd "$bb" >/dev/null 2>&1 || skip "no static busybox for the image (apt-get install busybox-static)"

# PID 1 is no systemd here: the cgroupfs manager. crun refuses a v1 host whose unified
# hierarchy holds a controller ("hybrid mode not supported"); runc runs there.
runtime=crun
command -v runc >/dev/null 2>&1 && runtime=runc
P() { podman --cgroup-manager=cgroupfs --runtime "$runtime" "$@"; }

scratch_new ctr
ID="" IMG=""
podman_cleanup() {
	st=$?
	# only what this scenario made, by the IDs podman gave it
	[ -n "$ID" ] && P rm -f -t 0 "$ID" >/dev/null 2>&1
	[ -n "$IMG" ] && P rmi -f "$IMG" >/dev/null 2>&1
	# runc made the cgroup parent in every hierarchy, not only memory's
	for h in /sys/fs/cgroup/*/; do
		d="$h${CGREL#/}"
		[ "$d" != "$CG/" ] && [ -d "$d" ] || continue
		find "$d" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
		rmdir "$d" 2>/dev/null
	done
	return $st
}
trap 'podman_cleanup; mcg_cleanup' EXIT

mkdir -p "$MCG_TMP/root/bin"
cp "$bb" "$MCG_TMP/root/bin/busybox"
ln -s busybox "$MCG_TMP/root/bin/sh"
ln -s busybox "$MCG_TMP/root/bin/sleep"
tar -C "$MCG_TMP/root" -cf "$MCG_TMP/root.tar" .
IMG=$(P import -q "$MCG_TMP/root.tar" "localhost/$MCG_PREFIX:latest" 2>"$MCG_TMP/import.err") ||
	skip "podman cannot import an image here: $(tail -1 "$MCG_TMP/import.err")"

name="$MCG_PREFIX-web"
# the host's hard limits are below podman's default rlimits, which runc may not raise
ID=$(P create --name "$name" --cgroup-parent="$CGREL" --memory 100m --network none \
	--ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "$IMG" /bin/sleep 600 2>"$MCG_TMP/create.err") ||
	skip "podman cannot create a container: $(tail -1 "$MCG_TMP/create.err")"
P start "$ID" >/dev/null 2>"$MCG_TMP/start.err" ||
	skip "podman ($runtime) cannot run a container on this host: $(tail -1 "$MCG_TMP/start.err")"
ok "podman ($runtime) runs container ${ID%"${ID#????????????}"}"

want="$CGREL/libpod-$ID"
[ -d "$MCG_CGROOT$want" ] || fail "no cgroup $MCG_CGROOT$want for the container"
assert_eq "the container's task is in it" "$(P inspect --format '{{.State.Pid}}' "$ID")" \
	"$(cat "$MCG_CGROOT$want/cgroup.procs")"

# by name, by a 12-digit ID prefix, by the whole ID
"$MEMCGCTL" show --json "podman:$name" >"$MCG_TMP/show.json"
assert_eq "podman:NAME resolves" "$want" "$(json .cgroup <"$MCG_TMP/show.json")"
assert_eq "show names the container" "$name" "$(json .container.name <"$MCG_TMP/show.json")"
assert_eq "show gives its ID" "$ID" "$(json .container.id <"$MCG_TMP/show.json")"
assert_eq "show: runtime" podman "$(json .container.runtime <"$MCG_TMP/show.json")"
assert_eq "limit as the kernel has it" "$(knob "$MCG_CGROOT$want" "$K_LIMIT")" \
	"$(json .limit_bytes <"$MCG_TMP/show.json")"
assert_eq "limit as podman set it" $((100 * 1048576)) "$(json .limit_bytes <"$MCG_TMP/show.json")"
short=$(printf %s "$ID" | cut -c1-12)
assert_eq "podman:IDPREFIX resolves" "$want" "$("$MEMCGCTL" show --json "podman:$short" | json .cgroup)"
assert_eq "podman:ID resolves" "$want" "$("$MEMCGCTL" show --json "podman:$ID" | json .cgroup)"

# set-limit through the name: the kernel's file holds it
"$MEMCGCTL" --raw set-limit "podman:$name" 64M >"$MCG_TMP/set.out" 2>&1 || {
	cat "$MCG_TMP/set.out" >&2
	fail "set-limit podman:$name 64M"
}
assert_eq "kernel limit after set-limit" $((64 * 1048576)) "$(knob "$MCG_CGROOT$want" "$K_LIMIT")"
assert_eq "show reads it back" $((64 * 1048576)) \
	"$("$MEMCGCTL" show --json "podman:$name" | json .limit_bytes)"
# podman's own view: usage from the same cgroup; its limit is what podman was told
usage=$(knob "$MCG_CGROOT$want" "$K_USAGE")
pusage=$(P stats --no-stream --format '{{.MemUsage}}' "$ID" | awk '{ print $1 }')
say "podman stats: usage $pusage, limit $(P stats --no-stream --format '{{.MemLimit}}' "$ID")" \
	"(podman reports its configured limit; podman inspect: $(P inspect --format '{{.HostConfig.Memory}}' "$ID"))"
[ -n "$pusage" ] || fail "podman stats gives no usage"
ok "kernel usage $usage, podman's $pusage"

# list and top show the container's name on its row
"$MEMCGCTL" list --json -o CGROUP,CONTAINER "$CGREL" >"$MCG_TMP/list.json"
assert_eq "list: CONTAINER" "podman:$name" \
	"$(jq -r --arg p "$want" '.. | objects | select(.cgroup? == $p) | .container' "$MCG_TMP/list.json")"
"$MEMCGCTL" list -o CGROUP,CONTAINER "$CGREL" | grep -q "podman:$name" || fail "list text has no podman:$name"
ok "list shows podman:$name"
"$MEMCGCTL" top -b -n 1 -o CGROUP,CONTAINER "$CGREL" >"$MCG_TMP/top.out" 2>&1 ||
	{ cat "$MCG_TMP/top.out" >&2; fail "top -b"; }
grep -q "podman:$name" "$MCG_TMP/top.out" || { cat "$MCG_TMP/top.out" >&2; fail "top -b has no podman:$name"; }
ok "top -b shows podman:$name"

# export labels its samples with the container's name
"$MEMCGCTL" export "$CGREL" >"$MCG_TMP/export.txt"
grep -q "^memcgctl_limit_bytes{cgroup=\"$want\",container=\"$name\"} $((64 * 1048576))\$" "$MCG_TMP/export.txt" || {
	grep limit_bytes "$MCG_TMP/export.txt" >&2
	fail "export has no limit sample labelled container=\"$name\""
}
ok "export: container=\"$name\" on the limit sample"

# record keeps the name with the samples: dump shows it once the container is gone (below)
STORE="$MCG_TMP/store"
"$MEMCGCTL" record --store "$STORE" -d 100ms -n 3 --no-oom "$CGREL" >"$MCG_TMP/rec.out" 2>&1 ||
	{ cat "$MCG_TMP/rec.out" >&2; fail "record -n 3 $CGREL"; }
ok "recorded 3 frames of $CGREL"

# a name podman does not have: 64, and the message says what was read
set +e
"$MEMCGCTL" show "podman:$MCG_PREFIX-nosuch" >/dev/null 2>"$MCG_TMP/bad.err"
st=$?
set -e
assert_eq "unknown podman name: status" 64 "$st"
grep -q "overlay-containers: [0-9]* container" "$MCG_TMP/bad.err" || {
	cat "$MCG_TMP/bad.err" >&2
	fail "the message does not say what was read"
}
ok "unknown name: $(cat "$MCG_TMP/bad.err")"

# gone: once podman removed it, the name no longer resolves
P rm -f -t 0 "$ID" >/dev/null
ID=""
set +e
"$MEMCGCTL" show "podman:$name" >/dev/null 2>"$MCG_TMP/gone.err"
st=$?
set -e
assert_eq "removed container: status" 64 "$st"
ok "removed: $(cat "$MCG_TMP/gone.err")"

# the history still names it: every recorded frame of the container's cgroup carries the name
"$MEMCGCTL" dump --store "$STORE" --json >"$MCG_TMP/dump.json" || fail "dump --json"
nf=$(jq -s --arg p "$want" '[.[] | .. | objects | select(.cgroup? == $p)] | length' "$MCG_TMP/dump.json")
named=$(jq -s --arg p "$want" '[.[] | .. | objects | select(.cgroup? == $p and (.name? // "") != "")] | length' "$MCG_TMP/dump.json")
assert_le "frames of the container's cgroup in the store" 3 "$nf"
assert_eq "frames that name it, after podman removed it" "$nf" "$named"
nm=$(jq -rs --arg p "$want" '[.[] | .. | objects | select(.cgroup? == $p) | .name][0]' "$MCG_TMP/dump.json")
case $nm in
*"$name"*) ok "dump names the removed container: $nm" ;;
*) fail "dump names $want '$nm', not the container $name" ;;
esac
