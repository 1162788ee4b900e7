#!/bin/bash
# check-examples.sh: run every example command of README.md and of each man page's EXAMPLES,
# so that an example cannot go stale: a non-zero exit, a jq error or a jq filter that prints
# only nulls fails the test.
#
# usage: check-examples.sh MEMCGCTL SRCDIR fixture
#        check-examples.sh MEMCGCTL SRCDIR real CGREL PID   (from tests/real/scenarios/examples-real.sh)
#
# Examples are the lines of README.md's ```sh blocks and the memcgctl lines ("memcgctl ..."
# or "# memcgctl ...") between .nf and .fi in a man page's EXAMPLES section; a trailing
# "  # comment" is dropped. Each example gets one class (classify below):
#   fixture  run on a copy of tests/cli/fixtures/v1 (--root/--proc, a temp run dir, store)
#   v2       the same on the v2 fixture (options only v2 has)
#   runs     runs until stopped (a live view, --watch, a server): must still be running
#            after 1 s, or have exited 0
#   real     needs a real cgroup (starts reclaimd): run by the real-v1 scenario
#            examples-real on scratch cgroups, skipped here
#   systemd  needs systemd (a unit name, systemctl): listed as skipped
#   setup    building and installing (bootstrap, the suite, the package): not run here
# The cgroups the examples name (web, db, /batch/job-42, /system.slice/nginx.service, ...)
# are made in the fixture copy (below CGREL on a real host), pid:1234 names a process in
# /web, and /var/lib/prometheus/node-exporter and 127.0.0.1:9756 are replaced by a
# temporary directory and a free port. On the fixture (whose counters do not move) a sample
# count (-n, --count) is 2 and an interval (-d, --interval, --watch) 100ms.
set -u
bin=$1 src=$2 mode=${3:-fixture}
cgrel=${4:-} realpid=${5:-}
command -v jq >/dev/null || { echo "SKIP: the examples need jq"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcg-examples.XXXXXX")
bgpids=
cleanup() {
	for p in $bgpids; do kill -KILL -- "-$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# extract: "FILE<TAB>EXAMPLE" lines
extract() {
	awk -v f=README.md '
		/^```sh$/ { inb = 1; next }
		/^```/ { inb = 0; next }
		inb && NF { print f "\t" $0 }' "$src/README.md"
	for m in "$src"/man/*.[1-8]; do
		awk -v f="man/${m##*/}" '
			/^\.SH/ { ex = ($0 ~ /^\.SH "?EXAMPLES?"?$/); inb = 0; next }
			ex && /^\.nf/ { inb = 1; next }
			ex && /^\.fi/ { inb = 0; next }
			ex && inb {
				l = $0
				sub(/^[ \t]+/, "", l)
				sub(/^# /, "", l)
				if (l ~ /^memcgctl( |$)/)
					print f "\t" l
			}' "$m"
	done
}

# the example as a shell command: groff escapes undone, the trailing comment dropped
normalize() {
	sed -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/\\(dq/"/g' -e 's/\\e/\\/g' |
		awk '{
			q = ""; out = ""
			for (i = 1; i <= length($0); i++) {
				c = substr($0, i, 1)
				if (q == "" && c == "#" && (i == 1 || substr($0, i - 1, 1) ~ /[ \t]/))
					break
				if (q == "" && (c == "\047" || c == "\"")) q = c
				else if (c == q) q = ""
				out = out c
			}
			sub(/[ \t]+$/, "", out)
			print out
		}'
}

classify() {
	local e=$1 w
	case $e in
	"sh scripts/"* | dpkg-buildpackage*) echo setup; return ;;
	systemctl* | *" systemctl "*) echo systemd; return ;;
	*"async-reclaim enable"*--no-start*) ;;
	*"async-reclaim enable"* | *"async-reclaim disable"*) echo real; return ;;
	esac
	for w in $e; do
		case $w in
		*/*) ;;
		*.service | *.scope | *.slice | user@*) echo systemd; return ;;
		esac
	done
	case $e in
	*" docker:"* | *" podman:"* | *" containerd:"* | *" pod:"*) echo containers ;;
	# size probes until it converges or its budget ends: on a fixture that never changes
	# it runs; real-v1/size-* run it against a workload
	# what a recorded kill prints: real-v1/oom-* make kills and read them this way
	"memcgctl oom --json"*"| jq"*) echo oom ;;
	"memcgctl size"*--dry-run*) echo fixture ;;
	"memcgctl size"*) echo runs ;;
	*"--swap 512M --high 1800M"*) echo v2 ;;
	*"reclaimd --foreground --keep"*) echo runs ;;
	*"reclaimd --foreground"*--size*) echo runs ;;
	"memcgctl top" | *"--listen "* | *"top --replay"*) echo runs ;;
	*--textfile*--interval*) echo runs ;;
	*--watch*--count* | *--count*--watch*) echo fixture ;;
	*--watch*) echo runs ;;
	"memcgctl record"*) case $e in *" -n "* | *--count*) echo fixture ;; *) echo runs ;; esac ;;
	*) echo fixture ;;
	esac
}

# the cgroup names examples use, made in the fixture copy (or below CGREL)
names="web db batch batch/job-42 system.slice system.slice/nginx.service system.slice/backup.service system.slice/web.service"
port=$((20000 + $$ % 20000))
rewrite() {
	local e=$1 out= w n pre=$cgrel prev=
	for w in $e; do
		# on the fixture (it does not change), a sample count is 2 and an interval 100ms
		if [ "$mode" = fixture ]; then
			case $prev/$w in
			-n/[0-9]* | --count/[0-9]*) w=2 ;;
			-d/[0-9]*s | --interval/[0-9]*s | --watch/[0-9]*s) w=100ms ;;
			esac
			case $w in --watch=[0-9]*s) w=--watch=100ms ;; esac
		fi
		prev=$w
		for n in $names; do
			case $w in
			"$n" | "/$n") w="$pre/$n" ;;
			esac
		done
		case $w in pid:1234) w="pid:$PID1234" ;; esac
		out="$out${out:+ }$w"
	done
	out=${out//\/var\/lib\/prometheus\/node-exporter/$tmp/textfile}
	out=${out//127.0.0.1:9756/127.0.0.1:$port}
	out=${out//\/var\/tmp\/history/$tmp/store2}
	out=${out//--run-dir \/tmp\/mcg/--run-dir $tmp/run}
	printf '%s\n' "$out"
}

mkfixture() { # VERSION DIR
	local v=$1 d=$2 n
	cp -a "$src/tests/cli/fixtures/$v" "$d"
	for n in $names; do
		mkdir -p "$d/cgroup/$n"
		# a leaf's files; /db is at 95% of its limit so that the jq filters find it
		find "$src/tests/cli/fixtures/$v/cgroup/fixture/app" -maxdepth 1 -type f \
			-exec cp {} "$d/cgroup/$n/" \;
	done
	if [ "$v" = v1 ]; then
		echo 60000000 >"$d/cgroup/db/memory.usage_in_bytes"
		echo 63160320 >"$d/cgroup/db/memory.limit_in_bytes"
		mkdir -p "$d/proc/1234" && echo "5:memory:/web" >"$d/proc/1234/cgroup"
	else
		echo 60000000 >"$d/cgroup/db/memory.current"
		echo 63160320 >"$d/cgroup/db/memory.max"
		mkdir -p "$d/proc/1234" && echo "0::/web" >"$d/proc/1234/cgroup"
	fi
}

# a memcgctl on PATH that takes the test's tree, run dir and store
mkwrapper() { # DIR ROOTARGS
	mkdir -p "$1"
	cat >"$1/memcgctl" <<EOF
#!/bin/bash
cmd= skip=0 replay=0 watch=0
for a in "\$@"; do
	if [ \$skip = 1 ]; then skip=0; continue; fi
	case \$a in
	--root | --proc | --run-dir | --cgroup-version) skip=1 ;;
	--replay) replay=1 ;;
	--watch) watch=1 ;;
	-*) ;;
	*) [ -z "\$cmd" ] && cmd=\$a ;;
	esac
done
extra=()
case \$cmd in dump | record) extra=(--store "$tmp/store") ;; oom) [ \$watch = 1 ] || extra=(--store "$tmp/store") ;; top) [ \$replay = 1 ] && extra=(--store "$tmp/store") ;; esac
MEMCGCTL_STATE_ROOT="$tmp/containers/state" MEMCGCTL_RUNDIR="$rundir" exec "$bin" $2 "\$@" "\${extra[@]}"
EOF
	chmod +x "$1/memcgctl"
}

mkdir -p "$tmp/run" "$tmp/textfile" "$tmp/cwd"
chmod 0700 "$tmp/run"
rundir=$tmp/run
if [ "$mode" = real ]; then
	# the scenario's run dir: it stops a reclaimd left running
	rundir=${MEMCGCTL_RUNDIR:-$tmp/run}
	PID1234=$realpid
	mkwrapper "$tmp/bin-real" ""
else
	PID1234=1234
	cgrel=
	mkfixture v1 "$tmp/v1"
	mkfixture v2 "$tmp/v2"
	cp -a "$tmp/v1/cgroup" "$tmp/v1/cgroup.orig"
	cp -a "$tmp/v2/cgroup" "$tmp/v2/cgroup.orig"
	mkwrapper "$tmp/bin-v1" "--root $tmp/v1/cgroup --proc $tmp/v1/proc"
	mkwrapper "$tmp/bin-v2" "--root $tmp/v2/cgroup --proc $tmp/v2/proc"
	# container and pod names: the node state and tree of tests/cli/fixtures/containers
	cp -a "$src/tests/cli/fixtures/containers" "$tmp/containers"
	cp -a "$tmp/containers/cgroup" "$tmp/containers/cgroup.orig"
	mkwrapper "$tmp/bin-containers" \
		"--root $tmp/containers/cgroup --cgroup-version 2 --proc $src/tests/cli/fixtures/v2/proc"
	# a store for dump and top --replay to read: three samples of the fixture
	PATH="$tmp/bin-v1:$PATH" memcgctl record -n 3 -d 50ms >/dev/null 2>"$tmp/record.err" ||
		{ cat "$tmp/record.err"; echo "FAIL: cannot record the fixture store"; exit 1; }
fi

# run_one CLASS CMD: 0 when the example did what an example must
run_one() {
	local cls=$1 cmd=$2 bindir=$tmp/bin-v1 rc pid i
	[ "$mode" = real ] && bindir=$tmp/bin-real
	[ "$cls" = v2 ] && bindir=$tmp/bin-v2
	[ "$cls" = containers ] && bindir=$tmp/bin-containers
	# the fixture as it was made, after an example that writes to it
	if [ "$mode" = fixture ] && [ -n "$dirty" ]; then
		rm -rf "$tmp/$dirty/cgroup"
		cp -a "$tmp/$dirty/cgroup.orig" "$tmp/$dirty/cgroup"
		dirty=
	fi
	case $cmd in
	*set-limit* | *empty* | *recover* | *async-reclaim*)
		dirty=v1
		[ "$cls" = v2 ] && dirty=v2
		[ "$cls" = containers ] && dirty=containers ;;
	esac
	: >"$tmp/out"
	if [ "$cls" = runs ]; then
		# its own process group, so that stopping it stops the whole pipeline
		(cd "$tmp/cwd" && PATH="$bindir:$PATH" exec setsid bash -o pipefail -c "$cmd") \
			>"$tmp/out" 2>"$tmp/err" </dev/null &
		pid=$!
		bgpids="$bgpids $pid"
		for i in $(seq 10); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			kill -TERM -- "-$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			return 0
		fi
		wait "$pid"
		rc=$?
	else
		(cd "$tmp/cwd" && PATH="$bindir:$PATH" timeout 60 bash -o pipefail -c "$cmd") \
			>"$tmp/out" 2>"$tmp/err" </dev/null
		rc=$?
	fi
	if [ $rc != 0 ]; then
		echo "exit status $rc"
		return 1
	fi
	case $cmd in
	*"| jq"*)
		# pretty-printed JSON is checked one value a line
		jq -c . <"$tmp/out" >"$tmp/out.c" 2>/dev/null && mv "$tmp/out.c" "$tmp/out"
		if ! [ -s "$tmp/out" ]; then
			echo "the jq filter printed nothing"
			return 1
		fi
		if ! grep -qvE '^(null|\{("[^"]*":null,?)*\}|\[\])$' "$tmp/out"; then
			echo "the jq filter printed only nulls"
			return 1
		fi
		;;
	esac
	return 0
}

fails=0 ran=0 dirty=
while IFS=$'\t' read -r file raw; do
	ex=$(printf '%s\n' "$raw" | normalize)
	[ -n "$ex" ] || continue
	cls=$(classify "$ex")
	case $mode/$cls in
	fixture/setup | fixture/systemd | fixture/real | fixture/oom | real/setup | real/systemd | real/oom)
		[ "$mode" = fixture ] && echo "skip ($cls): $file: $ex"
		continue ;;
	real/fixture | real/v2 | real/runs | real/containers) continue ;;
	esac
	cmd=$(rewrite "$ex")
	ran=$((ran + 1))
	t0=$(date +%s%N)
	# not in $(...): run_one keeps what it changes (the fixture's state, the pids to stop)
	if run_one "$cls" "$cmd" >"$tmp/why"; then
		echo "ok ($cls, $((($(date +%s%N) - t0) / 1000000)) ms): $file: $ex"
		[ "$cmd" = "$ex" ] || echo "  ran: $cmd"
	else
		echo "FAIL ($cls): $file: $ex: $(cat "$tmp/why")" >&2
		echo "  ran: $cmd" >&2
		sed 's/^/  stdout: /' "$tmp/out" | head -5 >&2
		sed 's/^/  stderr: /' "$tmp/err" | head -10 >&2
		fails=$((fails + 1))
	fi
done < <(extract)
echo "$ran examples run, $fails failed"
[ $ran -gt 0 ] || { echo "FAIL: no examples found"; exit 1; }
[ $fails = 0 ]
