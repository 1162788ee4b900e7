#!/bin/sh
# check-docs.sh: every command has a man page naming each of its options (and, for a table
# command, each column: its heading and JSON key); memcgctl.8 names the global options and
# every command; -h works; the completions ask the binary (no option lists).
# usage: check-docs.sh MEMCGCTL SRCDIR
set -eu
bin=$1 src=$2
rc=0
has() { # MANPAGE OPTION: roff writes --x as \-\-x
	o=$(printf '%s' "$2" | sed 's/=$//; s/-/\\\\-/g')
	grep -q -- "$o" "$1" || grep -q -- "${2%=}" "$1"
}
main="$src/man/memcgctl.8"
[ -f "$main" ] || { echo "missing $main"; exit 1; }
for o in $("$bin" __complete options); do
	has "$main" "$o" || { echo "memcgctl.8 does not name global option $o"; rc=1; }
done
for c in $("$bin" __complete commands); do
	[ "$c" = help ] && continue
	has "$main" "memcgctl-$c" || { echo "memcgctl.8 does not mention memcgctl-$c"; rc=1; }
	page="$src/man/memcgctl-$c.8"
	if [ ! -f "$page" ]; then
		echo "command $c has no man page $page"
		rc=1
		continue
	fi
	for o in $("$bin" __complete own-options "$c"); do
		has "$page" "$o" || { echo "$page does not name option $o"; rc=1; }
	done
	"$bin" help "$c" >/dev/null || { echo "memcgctl help $c failed"; rc=1; }
	"$bin" "$c" -h >/dev/null || { echo "memcgctl $c -h failed"; rc=1; }
	# a table command: its page names the table options and every column (heading and key)
	if cols=$("$bin" --root "$src/tests/cli/fixtures/v2/cgroup" "$c" --list-columns 2>/dev/null) &&
		[ -n "$cols" ]; then
		for o in --output --noheadings --list-columns; do
			has "$page" "$o" || { echo "$page does not name option $o"; rc=1; }
		done
		for w in $(echo "$cols" | awk '{print $1, $2}'); do
			grep -qF -- "$w" "$page" || { echo "$page does not document column $w"; rc=1; }
		done
	fi
	for w in $("$bin" __complete words "$c"); do
		grep -q "$w" "$page" || { echo "$page does not name sub-command $w"; rc=1; }
	done
done
for f in memcgctl.bash memcgctl.zsh memcgctl.fish; do
	grep -q "__complete" "$src/completions/$f" || { echo "completions/$f does not ask the binary (__complete)"; rc=1; }
done
# bash completion really completes: command names and a command's options
if command -v bash >/dev/null; then
	out=$(bash -c '. "$1/completions/memcgctl.bash"; PATH="$(dirname "$2"):$PATH"; COMP_WORDS=(memcgctl sh); COMP_CWORD=1; _memcgctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$src" "$bin")
	echo "$out" | grep -qx show || { echo "bash completion of 'sh' did not offer show: $out"; rc=1; }
	out=$(bash -c '. "$1/completions/memcgctl.bash"; PATH="$(dirname "$2"):$PATH"; COMP_WORDS=(memcgctl list --de); COMP_CWORD=2; _memcgctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$src" "$bin")
	echo "$out" | grep -q -- "--depth" || { echo "bash completion of 'list --de' did not offer --depth: $out"; rc=1; }
	# container and pod names (the containers fixture's state): "dock" and, split at ':', "podman:qu"
	fx="$src/tests/cli/fixtures/containers"
	out=$(MEMCGCTL_STATE_ROOT="$fx/state" bash -c '. "$1/completions/memcgctl.bash"; PATH="$(dirname "$2"):$PATH"; COMP_WORDS=(memcgctl --root "$3" show dock); COMP_CWORD=4; COMP_LINE="memcgctl --root $3 show dock"; COMP_POINT=${#COMP_LINE}; _memcgctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$src" "$bin" "$fx/cgroup")
	echo "$out" | grep -qx "docker:web" || { echo "bash completion of 'show dock' did not offer docker:web: $out"; rc=1; }
	out=$(MEMCGCTL_STATE_ROOT="$fx/state" bash -c '. "$1/completions/memcgctl.bash"; PATH="$(dirname "$2"):$PATH"; COMP_WORDS=(memcgctl --root "$3" show podman : qu); COMP_CWORD=6; COMP_LINE="memcgctl --root $3 show podman:qu"; COMP_POINT=${#COMP_LINE}; _memcgctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$src" "$bin" "$fx/cgroup")
	[ "$out" = queue ] || { echo "bash completion of 'show podman:qu' did not offer queue: $out"; rc=1; }
fi
[ $rc = 0 ] && echo "docs and completions agree with $bin"
exit $rc
