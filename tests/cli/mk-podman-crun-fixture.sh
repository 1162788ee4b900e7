#!/bin/sh
# mk-podman-crun-fixture.sh: write the podman-crun fixture into OUTDIR: a v2 cgroup tree as
# rootful podman with crun makes it under systemd (issue 30, seen in the real-systemd guest):
# /machine.slice/libpod-ID.scope, delegated, no task and memory.max "max", with the
# container's task and podman run --memory's limit in its child "container" (crun's
# run.oci.systemd.subgroup); the conmon scope beside it; containers.json naming it "web".
# usage: mk-podman-crun-fixture.sh OUTDIR   (tests/cli/fixtures/podman-crun is its output)
set -eu
out=${1:?usage: mk-podman-crun-fixture.sh OUTDIR}
P=$(printf podman-crun-web | sha256sum | cut -c1-64)
rm -rf "$out"
mkdir -p "$out/cgroup"
n=0
cg() { # PATH [MAX [PROCS]]
	d="$out/cgroup$1"
	mkdir -p "$d"
	n=$((n + 1))
	echo memory >"$d/cgroup.controllers"
	echo "${2:-max}" >"$d/memory.max"
	echo $((n * 1048576)) >"$d/memory.current"
	printf 'anon %d\nfile 0\nfile_dirty 0\nfile_writeback 0\n' $((n * 1048576)) >"$d/memory.stat"
	echo max >"$d/memory.high"
	echo 0 >"$d/memory.low"
	echo 0 >"$d/memory.min"
	printf 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n' >"$d/memory.events"
	printf '%s' "${3:-}" >"$d/cgroup.procs"
}
echo memory >"$out/cgroup/cgroup.controllers"
printf 'anon 0\nfile 0\n' >"$out/cgroup/memory.stat"
cg /machine.slice
cg "/machine.slice/libpod-$P.scope"
echo memory >"$out/cgroup/machine.slice/libpod-$P.scope/cgroup.subtree_control"
cg "/machine.slice/libpod-$P.scope/container" 104857600 '192
'
cg "/machine.slice/libpod-conmon-$P.scope" max '180
'
o="$out/state/var/lib/containers/storage/overlay-containers"
mkdir -p "$o/$P/userdata"
printf '[{"id":"%s","names":["web"]}]\n' "$P" >"$o/containers.json"
chmod -R go-w "$out"
