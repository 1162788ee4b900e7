#!/bin/bash
# check.sh: top --replay shows the container and pod names recorded with each frame, not the
# node's names now (issue 30). record on a copy of the containers fixture, then the runtimes'
# state is emptied and a container's cgroup removed: the replay (text and JSON) still names
# them as the live view did while they ran, and matches replay.out (MCG_UPDATE=1 rewrites it);
# a live top names them no more, and a renamed container is renamed live only. Hostile names:
# a printable one is stored and stays escaped in text and JSON; one the store cannot hold (a
# bidi control) is not stored, and the replay shows the ID its path holds. A container whose
# state comes after the recorder first saw its cgroup is stored unnamed, then named at the
# next key frame (not with its ID for good).
# usage: check.sh MEMCGCTL FIXTURES
set -u
bin=$(realpath "$1") fixtures=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcg-top-replay.XXXXXX")
rec=
trap '[ -n "$rec" ] && kill $rec 2>/dev/null; wait; rm -rf "$tmp"' EXIT
export LC_ALL=C TZ=UTC MEMCGCTL_RUNDIR="$tmp/run" MEMCGCTL_STATE_ROOT="$tmp/fix/containers/state"
cp -a "$fixtures" "$tmp/fix"
rc=0
fail() { echo "FAIL: $*"; rc=1; }
m() { "$bin" --root "$tmp/fix/containers/cgroup" --cgroup-version 2 --proc "$tmp/fix/v2/proc" "$@"; }
cols=(-o CGROUP,CONTAINER,POD --noheadings)
st=$tmp/fix/containers/state
dk=$st/var/lib/docker/containers
web=f31f384749f9115acf01fcf82f5a966b59dcc0a4cbd7c9740888c0bf32aa2bbb
db=aed4cebcaf364cb3d8e610e862b1e5ecdeae9c59aaab8913729ae5647465b7bc
queue=4d3186a87a24f06a4f16c61fb3f28f958421c8822809607b0b514217c9ca4956
api=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1b2c3d4e_5f60_4718_8293_a4b5c6d7e8f9.slice/cri-containerd-14c2529eb4498c5d1ffd6915d05bf58a91bdda796af59f41d480d11c099d0479.scope

# hostile names: db's printable (a backslash, quotes, a comma), queue's with U+202E (RTL override)
sed -i 's|"Name":"/db"|"Name":"/d\\\\b \\"x\\",y"|' "$dk/$db/config.v2.json"
sed -i "s|\"names\":\\[\"queue\"\\]|\"names\":[\"que$(printf '\342\200\256')ue\"]|" \
	"$st/var/lib/containers/storage/overlay-containers/containers.json"
grep -q 'que' "$st/var/lib/containers/storage/overlay-containers/containers.json" ||
	fail "the fixture changed: no queue container"

m top -b -n 1 "${cols[@]}" >"$tmp/live" 2>"$tmp/err" || fail "live top: $(cat "$tmp/err")"
grep -q '^/system.slice/docker-[0-9a-f]*\.scope  *docker:web ' "$tmp/live" ||
	fail "live top does not name docker:web (the fixture changed?)"
grep -qF 'docker:d\\b "x",y' "$tmp/live" || fail "live top: the printable hostile name not escaped"
grep -qF 'podman:que\xe2\x80\xaeue' "$tmp/live" || fail "live top: the bidi name not escaped"

m record -n 2 -d 50ms --no-oom --store "$tmp/store" >/dev/null 2>"$tmp/err" ||
	fail "record: $(cat "$tmp/err")"

# the containers are gone: no state names them, docker web's cgroup is removed
rm -rf "${st:?}"/*
rm -rf "$tmp/fix/containers/cgroup/system.slice/docker-$web.scope"
m top -b -n 1 "${cols[@]}" >"$tmp/live-after" 2>&1
grep -q 'docker:web\|containerd:api\|shop/api-7d9f' "$tmp/live-after" &&
	fail "live top still names the containers after their state is gone"

m top -b -n 1 --replay --store "$tmp/store" "${cols[@]}" >"$tmp/replay" 2>"$tmp/err" ||
	fail "top --replay: $(cat "$tmp/err")"
# the live view of the recorded time, but for the name the store could not hold
sed "s|podman:que\\\\xe2\\\\x80\\\\xaeue|podman:${queue:0:12}|" "$tmp/live" >"$tmp/want"
if ! diff -u <(tr -s ' ' <"$tmp/want") <(tr -s ' ' <"$tmp/replay"); then
	fail "the replay's CONTAINER and POD are not those recorded"
fi
grep -q "^$api  *containerd:api  *shop/api-7d9f\$" "$tmp/replay" ||
	fail "replay: the pod's container lacks its recorded container or pod name"
LC_ALL=C grep -q "$(printf '\342\200\256')" "$tmp/replay" && fail "replay printed a raw bidi control"
if [ "${MCG_UPDATE:-0}" = 1 ]; then
	cp "$tmp/replay" "$here/replay.out"
else
	diff -u "$here/replay.out" "$tmp/replay" || fail "replay differs from replay.out"
fi

# JSON: the same names, JSON-escaped; every frame of the replay has them
m --json top -b --replay --store "$tmp/store" -o CGROUP,USAGE,CONTAINER,POD >"$tmp/replay.json" 2>"$tmp/err" ||
	fail "top --replay --json: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/replay.json")" = 2 ] || fail "top --replay --json: not one line per frame"
if command -v jq >/dev/null; then
	v=$(jq -r --arg p "/system.slice/docker-$web.scope" \
		'.cgroups[] | select(.cgroup == $p) | .container' "$tmp/replay.json" | sort -u)
	[ "$v" = docker:web ] || fail "JSON replay: docker web's container is '$v'"
	v=$(jq -r --arg p "/docker/$db" '.cgroups[] | select(.cgroup == $p) | .container' \
		"$tmp/replay.json" | sort -u)
	# escaped as every name in JSON is (memcgctl-json(7)): the backslash as two
	[ "$v" = 'docker:d\\b "x",y' ] || fail "JSON replay: the hostile name is '$v'"
	v=$(jq -r --arg p "$api" '.cgroups[] | select(.cgroup == $p) | .pod' "$tmp/replay.json" |
		sort -u)
	[ "$v" = shop/api-7d9f ] || fail "JSON replay: the pod is '$v'"
fi
grep -qF '"container":"docker:d\\\\b \"x\",y"' "$tmp/replay.json" ||
	fail "JSON replay: the hostile name is not JSON-escaped"

# a container renamed now: live top says so, the replay keeps the name recorded
cp -a "$fixtures/containers/state/." "$st/"
sed -i 's|"Name":"/db"|"Name":"/db-new"|' "$dk/$db/config.v2.json"
m top -b -n 1 "${cols[@]}" | grep -q "^/docker/$db  *docker:db-new " ||
	fail "live top does not resolve the name now"
m top -b -n 1 --replay --store "$tmp/store" "${cols[@]}" | grep -q "^/docker/$db  *docker:d\\\\\\\\b " ||
	fail "replay took the name now instead of the recorded one"

# a container whose runtime writes its state after the recorder first sees its cgroup: no ID
# is stored for good; it is named at the next key frame (every 60 frames: 3 s at 50 ms)
rm -rf "${st:?}"/* "$tmp/run"
cp -a "$fixtures/containers/cgroup/system.slice/." "$tmp/fix/containers/cgroup/system.slice/"
cp -a "$fixtures/containers/state/." "$st/"
rm -rf "${dk:?}/$web"
# not through m: $! would be the subshell running the function, and kill would leave the
# recorder running
"$bin" --root "$tmp/fix/containers/cgroup" --cgroup-version 2 --proc "$tmp/fix/v2/proc" \
	record -d 50ms --no-oom --store "$tmp/store2" >/dev/null 2>"$tmp/rec.err" &
rec=$!
# wait for states, each to a deadline: a frame with web's cgroup, then its name
seen() { m dump --store "$tmp/store2" --csv -o cgroup,name 2>/dev/null | grep -q "$1"; }
until_() { # DEADLINE-S WHAT CMD...
	local end=$((SECONDS + $1)) what=$2
	shift 2
	until "$@"; do
		kill -0 $rec 2>/dev/null || { fail "the recorder exited: $(cat "$tmp/rec.err")"; return 1; }
		[ $SECONDS -lt $end ] || { fail "timed out waiting for $what"; return 1; }
		sleep 0.1
	done
}
if until_ 60 "a frame with docker web's cgroup" seen "^/system.slice/docker-$web.scope,"; then
	seen "^/system.slice/docker-$web.scope,." && fail "a name was stored for web without state"
	cp -a "$fixtures/containers/state/var/lib/docker/containers/$web" "$dk/"
	until_ 60 "docker web's name at a key frame" seen "^/system.slice/docker-$web.scope,docker:web\$"
fi
kill $rec 2>/dev/null
wait $rec
rec=
m top -b --replay --store "$tmp/store2" "${cols[@]}" >"$tmp/replay2" 2>"$tmp/err" ||
	fail "top --replay of the second store: $(cat "$tmp/err")"
w=$(grep "^/system.slice/docker-$web.scope " "$tmp/replay2" | awk '{print $2}' | uniq | paste -sd' ')
[ "$w" = "docker:${web:0:12} docker:web" ] ||
	fail "replay of a container named late: '$w', not its ID, then its name"

[ $rc = 0 ] && echo "top-replay: every case as expected"
exit $rc
