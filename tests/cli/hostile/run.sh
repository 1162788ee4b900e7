#!/bin/bash
# run.sh: the hostile-name corpus (mk-hostile.sh) run through every command's text, JSON and
# completion output, on a v1 and a v2 fixture copy. Text (stdout and stderr) must hold no
# control byte but \n and \t, no C1 or bidi control and no invalid UTF-8; JSON must parse; no
# canary file may appear (a name like $(touch pwned) run by someone); nothing may crash.
# Prints how many hostile names were rendered and how many outputs were checked.
# usage: run.sh MEMCGCTL SRCDIR
set -u
bin=$(realpath "$1") src=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" # a name executed by a shell would drop its canary here
outputs=0 fails=0 rendered=0

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

check_text() { # LABEL FILE
	local why
	outputs=$((outputs + 1))
	[ -s "$2" ] || return 0
	# C0 controls but \n and \t, DEL, then (decoded) C1 controls; iconv is the strict UTF-8 check
	why=$(perl -0777 -ne '
		if (/([\x00-\x08\x0b-\x1f\x7f])/) { printf "control byte 0x%02x", ord $1; exit }
		utf8::decode($_) && /[\x{80}-\x{9f}]/ and print "C1 control";
		/[\x{61c}\x{200e}\x{200f}\x{202a}-\x{202e}\x{2066}-\x{2069}]/ and print "bidi control";' "$2")
	[ -z "$why" ] || fail "$1: $why in output: $(head -c 200 "$2" | cat -v)"
	if ! iconv -f UTF-8 -t UTF-8 "$2" >/dev/null 2>&1; then
		fail "$1: invalid UTF-8 in output: $(head -c 200 "$2" | cat -v)"
	fi
}

check_json() { # LABEL FILE: one document or JSON lines
	check_text "$1" "$2"
	outputs=$((outputs + 1))
	jq -e . "$2" >/dev/null 2>&1 || fail "$1: JSON does not parse: $(head -c 300 "$2" | cat -v)"
}

# run LABEL KIND EXPECTED_STATUS ARGS...: KIND text|json; checks stdout and stderr
run() {
	local label=$1 kind=$2 want=$3 st
	shift 3
	MEMCGCTL_RUNDIR="$tmp/run" "$bin" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	st=$?
	if [ "$want" != any ] && [ "$st" != "$want" ]; then
		fail "$label: exit status $st, expected $want: $(head -c 300 "$tmp/err" | cat -v)"
	fi
	if [ "$st" -ge 126 ] || grep -q 'Sanitizer\|runtime error' "$tmp/err"; then
		fail "$label: crashed (status $st): $(head -c 500 "$tmp/err")"
	fi
	if [ "$kind" = json ]; then
		check_json "$label (stdout)" "$tmp/out"
	else
		check_text "$label (stdout)" "$tmp/out"
	fi
	check_text "$label (stderr)" "$tmp/err"
	return "$st"
}

corpus() { # VERSION
	local v=$1 fix="$tmp/$1" root p names=() deep n=0 comp
	cp -a "$src/tests/cli/fixtures/$v" "$fix"
	root="$fix/cgroup"
	bash "$src/tests/cli/hostile/mk-hostile.sh" "$root" "$root/fixture/app" "$tmp/manifest-$v" ||
		{ fail "$v: cannot make the corpus"; return; }
	mapfile -d '' -t names <"$tmp/manifest-$v"
	mkdir -p "$tmp/state-$v"
	set -- --root "$root" --proc "$fix/proc"

	run "$v list" text 0 "$@" list
	run "$v list --json" json 0 "$@" --json list
	# every cgroup once, at its full length: the deep chain is 4774 bytes long; the
	# JSON is the tree (children nested), so collect every "cgroup" at any depth
	all='[.. | objects | select(has("cgroup")) | .cgroup]'
	n=$(jq "$all | unique | length" "$tmp/out")
	rows=$(jq "$all | length" "$tmp/out")
	[ "$n" = "$rows" ] || fail "$v list --json: $rows rows but $n distinct paths"
	[ "$((rows - 4))" = "${#names[@]}" ] || fail "$v list --json: $rows rows for ${#names[@]} hostile cgroups + 4"
	jq -e "[$all[] | select(startswith(\"/h/.hidden\"))] | length == 1" "$tmp/out" >/dev/null ||
		fail "$v list --json: the dot-named cgroup is not listed"
	jq -e "[$all[] | select(. == \"/h/bad-\\\\xff\\\\xfe\")] | length == 1" "$tmp/out" >/dev/null ||
		fail "$v list --json: invalid UTF-8 is not written as \\xHH"
	jq -e "[$all[] | select(. == \"/h/back\\\\\\\\slash\")] | length == 1" "$tmp/out" >/dev/null ||
		fail "$v list --json: a backslash is not written as two"
	deep=$(jq -r "[$all[] | select(startswith(\"/deep\"))] | max_by(length) | length" "$tmp/out")
	[ "$deep" = 4774 ] || fail "$v list --json: the deepest path is $deep bytes, not 4774"
	run "$v dirty" text 0 "$@" dirty
	run "$v dirty --json" json 0 "$@" --json dirty
	run "$v top -b" text 0 "$@" top -b -n 1 --no-taskstats
	run "$v top --json" json 0 "$@" --json top -n 1 --no-taskstats
	rows=$(jq '.cgroups | length' "$tmp/out")
	[ "$((rows - 4))" = "${#names[@]}" ] || fail "$v top --json: $rows rows for ${#names[@]} hostile cgroups + 4"
	run "$v async-reclaim status" text 0 "$@" async-reclaim status --state-dir "$tmp/state-$v"
	run "$v async-reclaim status --json" json 0 "$@" --json async-reclaim status --state-dir "$tmp/state-$v"
	run "$v recover --dry-run" text 0 "$@" recover --dry-run
	# export: every name a label value (escaped as the exposition format says); promtool parses it
	run "$v export" text 0 "$@" export
	if command -v promtool >/dev/null 2>&1; then
		outputs=$((outputs + 1))
		promtool check metrics <"$tmp/out" >"$tmp/promtool" 2>&1 ||
			fail "$v export: promtool: $(head -c 300 "$tmp/promtool")"
	fi
	# every cgroup's usage sample but the v2 root's (it has no memory.current)
	rows=$(grep -c '^memcgctl_usage_bytes{' "$tmp/out")
	[ "$((rows - 3))" -ge "${#names[@]}" ] ||
		fail "$v export: $rows usage samples for ${#names[@]} hostile cgroups + 3"
	for p in "${names[@]}"; do
		run "$v show $(printf %q "$p" | head -c 60)" text 0 "$@" show "$p" &&
			run "$v show --json" json 0 "$@" --json show "$p" &&
			[ "$(jq -r .cgroup "$tmp/out" | wc -c)" -gt 3 ] &&
			rendered=$((rendered + 1))
	done
	# the commands that change things, on a few hostile names (each copies its own fixture)
	for p in "${names[@]:0:14}" "${names[@]: -1}"; do
		run "$v set-limit --dry-run" text 0 "$@" set-limit --dry-run -- "$p" 100M
		run "$v set-limit --dry-run --json" json 0 "$@" --json set-limit --dry-run -- "$p" 100M
		run "$v async-reclaim status CGROUP" text any "$@" async-reclaim status --state-dir "$tmp/state-$v" -- "$p"
	done
	for p in "${names[@]:9:4}"; do # the terminal escapes
		if [ "$v" = v1 ]; then
			run "$v empty" text any "$@" empty --kernel -- "$p"
		else
			run "$v empty" text any "$@" empty --timeout 100ms -- "$p"
		fi
		run "$v size --dry-run" text 0 "$@" size --dry-run --interval 50ms -- "$p"
		run "$v size --dry-run --json" json 0 "$@" --json size --dry-run --interval 50ms -- "$p"
	done
	run "$v set-limit (missing)" text 64 "$@" set-limit -- $'/h/\e]52;c;eA==\a-missing' 100M

	# bash completion: exactly the cgroups (to depth 6), each quoted with %q
	comp=$(bash -c '
		. "$1/completions/memcgctl.bash"
		PATH="$(dirname "$2"):$PATH"
		COMP_WORDS=(memcgctl --root "$3" show "")
		COMP_CWORD=4
		_memcgctl
		printf "%s\0" "${COMPREPLY[@]}" | sort -z | sha256sum
	' _ "$src" "$bin" "$root")
	expect=$(cd "$root" && find . -maxdepth 6 -type d -print0 |
		bash -c 'mapfile -d "" -t ds; for d in "${ds[@]}"; do d=${d#.}; printf "%q\0" "${d:-/}"; done' |
		sort -z | sha256sum)
	outputs=$((outputs + 1))
	[ "$comp" = "$expect" ] || fail "$v bash completion: candidates differ from the tree"
}

corpus v1
corpus v2
for c in pwned pwned-bt pwned-semi; do
	[ -e "$tmp/$c" ] && fail "canary $c was created: a name was executed"
	[ -e "$src/$c" ] && fail "canary $c was created in the source tree"
done
echo "hostile corpus: $rendered hostile names rendered (show text and JSON, v1 and v2), $outputs outputs checked, $fails failures"
[ "$fails" = 0 ]
