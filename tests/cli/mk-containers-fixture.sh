#!/bin/sh
# mk-containers-fixture.sh: write the containers fixture (a v2 cgroup tree with the paths docker,
# podman, containerd, CRI-O and the kubelet make under the systemd and cgroupfs drivers, and the
# runtimes' state files that name them) into OUTDIR. The paths follow the runtimes' conventions
# (lib/sys/containers.c lists them); the state files hold the keys those runtimes write.
# usage: mk-containers-fixture.sh OUTDIR   (tests/cli/fixtures/containers is its output)
set -eu
out=${1:?usage: mk-containers-fixture.sh OUTDIR}
id() { printf %s "$1" | sha256sum | cut -c1-64; }
D1=$(id docker-web) D2=$(id docker-db) P1=$(id podman-cache) P2=$(id podman-queue)
C1=$(id etcd) C2=$(id api) S2=$(id api-sandbox) C3=$(id shipper) C4=$(id nginx) C5=$(id orphan)
G=$(printf etcd | md5sum | cut -c1-32)                 # a static pod: its UID is a hash
B=1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9 E=0e0e0e0e-1111-4222-8333-444455556666
U4=4a4a4a4a-0000-4000-8000-000000000004 U5=5a5a5a5a-0000-4000-8000-000000000005
us() { printf %s "$1" | tr - _; }

rm -rf "$out"
mkdir -p "$out/cgroup"
n=0
cg() { # PATH [MAX]: one v2 cgroup with the files list and show read
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
	: >"$d/cgroup.procs"
}
echo memory >"$out/cgroup/cgroup.controllers"
printf 'anon 0\nfile 0\n' >"$out/cgroup/memory.stat"
cg /system.slice
cg /system.slice/docker-$D1.scope 536870912
cg /docker
cg /docker/$D2
cg /machine.slice
cg /machine.slice/libpod-$P1.scope 268435456
cg /machine.slice/libpod-conmon-$P1.scope
cg /libpod_parent
cg /libpod_parent/libpod-$P2
cg /libpod_parent/conmon
cg /kubepods.slice
cg /kubepods.slice/kubepods-pod$G.slice
cg /kubepods.slice/kubepods-pod$G.slice/cri-containerd-$C1.scope
cg /kubepods.slice/kubepods-burstable.slice
cg /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$(us $B).slice
cg /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$(us $B).slice/cri-containerd-$S2.scope
cg /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$(us $B).slice/cri-containerd-$C2.scope 134217728
cg /kubepods.slice/kubepods-besteffort.slice
cg /kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$(us $E).slice
cg /kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$(us $E).slice/crio-$C3.scope
cg /kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$(us $E).slice/crio-conmon-$C3.scope
cg /kubepods
cg /kubepods/burstable
cg /kubepods/burstable/pod$U4
cg /kubepods/burstable/pod$U4/$C4
cg /kubepods/pod$U5
cg /kubepods/pod$U5/$C5
cg /default
cg /default/redis
cg /docker:literal # a cgroup whose name is a name form: that cgroup, not a container
cg /machine.slice/machine-app.slice
cg /machine.slice/machine-app.slice/ctr-web2.scope

s="$out/state"
mkdir -p "$s/var/lib/docker/containers/$D1" "$s/var/lib/docker/containers/$D2"
printf '{"ID":"%s","Name":"/web","State":{"Running":true,"Pid":1234},"Config":{"Labels":{}}}\n' \
	"$D1" >"$s/var/lib/docker/containers/$D1/config.v2.json"
printf '{"ID":"%s","Name":"/db","HostConfig":{"Memory":0,"CgroupParent":""}}\n' \
	"$D2" >"$s/var/lib/docker/containers/$D2/config.v2.json"
o="$s/var/lib/containers/storage/overlay-containers"
mkdir -p "$o/$P1/userdata" "$o/$C3/userdata"
printf '[{"id":"%s","names":["cache"],"metadata":"{\\"name\\":\\"cache\\"}"},' "$P1" >"$o/containers.json"
printf '{"id":"%s","names":["queue"]},' "$P2" >>"$o/containers.json"
printf '{"id":"%s","names":["k8s_shipper_logger_monitoring_%s_0"]}]\n' "$C3" "$E" >>"$o/containers.json"
printf '{"ociVersion":"1.0.2","annotations":{"io.podman.annotations.autoremove":"FALSE"}}\n' \
	>"$o/$P1/userdata/config.json"
printf '{"ociVersion":"1.0.2","linux":{"cgroupsPath":"kubepods-besteffort-pod%s.slice:crio:%s"},"annotations":{"io.kubernetes.cri-o.ContainerType":"container","io.kubernetes.pod.name":"logger","io.kubernetes.pod.namespace":"monitoring","io.kubernetes.pod.uid":"%s","io.kubernetes.container.name":"shipper"}}\n' \
	"$(us $E)" "$C3" "$E" >"$o/$C3/userdata/config.json"
t="$s/run/containerd/io.containerd.runtime.v2.task"
oci() { # NS ID CGROUPSPATH ANNOTATIONS
	mkdir -p "$t/$1/$2"
	printf '{"ociVersion":"1.1.0","process":{"args":["/pause"]},"linux":{"cgroupsPath":"%s","resources":{}},"annotations":{%s}}\n' \
		"$3" "$4" >"$t/$1/$2/config.json"
}
k() { printf '"io.kubernetes.cri.%s":"%s"' "$1" "$2"; }
oci k8s.io "$C1" "kubepods-pod$G.slice:cri-containerd:$C1" \
	"$(k container-type container),$(k sandbox-name etcd-node1),$(k sandbox-namespace kube-system),$(k sandbox-uid "$G"),$(k container-name etcd)"
# containerd before 1.7 writes no sandbox-uid: the pod's cgroup in cgroupsPath names it
oci k8s.io "$S2" "kubepods-burstable-pod$(us $B).slice:cri-containerd:$S2" \
	"$(k container-type sandbox),$(k sandbox-name api-7d9f),$(k sandbox-namespace shop)"
oci k8s.io "$C2" "kubepods-burstable-pod$(us $B).slice:cri-containerd:$C2" \
	"$(k container-type container),$(k sandbox-name api-7d9f),$(k sandbox-namespace shop),$(k sandbox-uid $B),$(k container-name api)"
oci k8s.io "$C4" "/kubepods/burstable/pod$U4/$C4" \
	"$(k container-type container),$(k sandbox-name web-0),$(k sandbox-namespace shop),$(k sandbox-uid $U4),$(k container-name nginx)"
oci default redis "/default/redis" ""
# systemd's form of cgroupsPath (SLICE:PREFIX:NAME), with an ID that is no hash
oci default web2 "machine-app.slice:ctr:web2" ""
# a stand-in crictl (cli cases put fix/containers/bin first on PATH): what crictl pods -o json
# prints for the one pod whose runtime state is not in the tree (pod U5)
mkdir -p "$out/bin"
cat >"$out/bin/crictl" <<EOC
#!/bin/sh
if [ "\$*" = "pods --namespace batch --name web-1 -o json" ]; then
	printf '{"items":[{"id":"%s","metadata":{"name":"web-1","uid":"%s","namespace":"batch","attempt":0},"state":"SANDBOX_READY","labels":{}}]}\n' "$C5" "$U5"
else
	echo '{"items":[]}'
fi
EOC
chmod 755 "$out/bin/crictl"
chmod -R go-w "$out"
