# lib-export.sh: helpers of the export scenarios (sourced after lib.sh): a free loopback
# port, our own servers started and stopped by pid, waiting for an HTTP answer.

# need_tool NAME PACKAGE: skip (77) without it, fail under CI=true
need_tool() {
	command -v "$1" >/dev/null && return 0
	[ "${CI:-}" = true ] && fail "$1 (Debian package $2) is missing"
	skip "$1 (Debian package $2) is not installed"
}

# free_port: a TCP port nobody listens on at 127.0.0.1 (the kernel picks it)
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# serve NAME CMD...: start CMD in the background (not in a cgroup), its pid in SERVE_PID,
# its output in $MCG_TMP/NAME.log; stopped by stop_server or, on failure, by lib.sh's cleanup
serve() {
	name=$1
	shift
	"$@" >"$MCG_TMP/$name.log" 2>&1 &
	SERVE_PID=$!
	echo "$SERVE_PID" >>"$MCG_CLEAN_PIDS"
}

# stop_server PID: SIGTERM, then reap; the exit status in STOP_STATUS
stop_server() {
	kill -TERM "$1" 2>/dev/null || true
	STOP_STATUS=0
	wait "$1" || STOP_STATUS=$?
}

# wait_http URL PID: until URL answers 200 (30 s), failing if PID exits first
wait_http() {
	i=0
	# (-m: a server that never accepts fails here, not hangs the test)
	until curl -fsS -m 10 -o /dev/null "$1" 2>/dev/null; do
		kill -0 "$2" 2>/dev/null || fail "server for $1 exited: $(tail -c 600 "$MCG_TMP"/*.log)"
		i=$((i + 1))
		[ $i -gt 300 ] && fail "no answer from $1 after 30 s"
		sleep 0.1
	done
}

# samples FILE: the memcgctl sample lines of an exposition, sorted, values as numbers (Go's
# exposition prints 33554432 as 3.3554432e+07)
samples() { awk '/^memcgctl_/ { printf "%s %.17g\n", $1, $2 }' "$1" | LC_ALL=C sort; }
