#!/bin/sh
# mk-containers-hostile-fixture.sh: write the containers-hostile fixture into OUTDIR: a small v2
# tree of docker, podman and containerd (Kubernetes) cgroups whose state files give hostile names:
# quotes and a backslash, a newline, an OSC 52 escape with BEL, a C1 CSI (U+009B), a byte that is
# no UTF-8, a 200-character name and one over the 253 bytes kept, a label's ',', '=' and '"',
# a pod namespace with a space. Names with C0 controls or over 253 bytes are refused as names (the
# view shows the ID); the rest must come out escaped in every view.
# usage: mk-containers-hostile-fixture.sh OUTDIR   (tests/cli/fixtures/containers-hostile)
set -eu
out=${1:?usage: mk-containers-hostile-fixture.sh OUTDIR}
id() { printf %s "$1" | sha256sum | cut -c1-64; }
D1=$(id h-quote) D2=$(id h-newline) D3=$(id h-osc) D4=$(id h-bytes) P1=$(id h-csi) P2=$(id h-long)
P3=$(id h-toolong) C1=$(id h-label)
B=7b7b7b7b-0000-4000-8000-000000000007
rm -rf "$out"
mkdir -p "$out/cgroup"
n=0
cg() { # PATH: one v2 cgroup with the files list, show and export read
	d="$out/cgroup$1"
	mkdir -p "$d"
	n=$((n + 1))
	echo memory >"$d/cgroup.controllers"
	echo max >"$d/memory.max"
	echo $((n * 1048576)) >"$d/memory.current"
	printf 'anon %d\nfile 0\nfile_dirty 0\nfile_writeback 0\n' $((n * 1048576)) >"$d/memory.stat"
	echo max >"$d/memory.high"
	echo 0 >"$d/memory.low"
	echo 0 >"$d/memory.min"
	printf 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n' >"$d/memory.events"
	: >"$d/cgroup.procs"
}
echo memory >"$out/cgroup/cgroup.controllers"
printf 'anon 0\nfile 0\n' >"$out/cgroup/memory.stat"
cg /system.slice
for d in $D1 $D2 $D3 $D4; do cg /system.slice/docker-$d.scope; done
cg /machine.slice
for p in $P1 $P2 $P3; do cg /machine.slice/libpod-$p.scope; done
cg /kubepods.slice
cg /kubepods.slice/kubepods-burstable.slice
pod=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$(printf %s $B | tr - _).slice
cg "$pod"
cg "$pod/cri-containerd-$C1.scope"

s="$out/state"
dk() { # ID NAME-AS-JSON-TEXT
	mkdir -p "$s/var/lib/docker/containers/$1"
	printf '{"ID":"%s","Name":"%s"}\n' "$1" "$2" >"$s/var/lib/docker/containers/$1/config.v2.json"
}
dk "$D1" "/q\\\"uo'te\\\\back"
dk "$D2" '/new\nline'
dk "$D3" '/\u001b]52;c;aGk=\u0007'
dk "$D4" "/bad$(printf '\377')byte"
long=$(printf 'L%.0s' $(seq 200)) toolong=$(printf 'T%.0s' $(seq 300))
o="$s/var/lib/containers/storage/overlay-containers"
mkdir -p "$o"
printf '[{"id":"%s","names":["csi\\u009b31mred"]},{"id":"%s","names":["%s"]},{"id":"%s","names":["%s"]}]\n' \
	"$P1" "$P2" "$long" "$P3" "$toolong" >"$o/containers.json"
t="$s/run/containerd/io.containerd.runtime.v2.task/k8s.io/$C1"
mkdir -p "$t"
k() { printf '"io.kubernetes.cri.%s":"%s"' "$1" "$2"; }
printf '{"ociVersion":"1.1.0","linux":{"cgroupsPath":"kubepods-burstable-pod%s.slice:cri-containerd:%s"},"annotations":{%s}}\n' \
	"$(printf %s $B | tr - _)" "$C1" \
	"$(k container-type container),$(k sandbox-name 'p\"o{d}'),$(k sandbox-namespace 'n s'),$(k sandbox-uid $B),$(k container-name 'a,b=\"c\"')" \
	>"$t/config.json"
chmod -R go-w "$out"
