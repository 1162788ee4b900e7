#!/bin/bash
# check-completion-values.sh: option values complete from the binary's own tables (columns
# for -o and --sort, the families --families lists), with their meaning in zsh and fish, and
# an option that takes a value never gets cgroup paths.
# usage: check-completion-values.sh MEMCGCTL SRCDIR
set -u
bin=$1 src=$2
root=$src/tests/cli/fixtures/v1/cgroup
export PATH="$(dirname "$bin"):$PATH"
fails=0
check() { # WHAT GOT WANT
	if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: got '$2', want '$3'" >&2; fails=$((fails + 1)); fi
}
# the binary: every column of top's table is a --sort value, families from export's help
want=$("$bin" top --list-columns | awk '{ print tolower($1) }' | tr '\n' ' ')
check "values top --sort = top's columns" "$("$bin" __complete values top --sort | cut -f1 | tr '\n' ' ')" "$want"
check "values export --families" "$("$bin" __complete values export --families | tr '\n' ' ')" \
	"usage limits memory reclaim events psi tree dirty reclaimd oom size store "
"$bin" __complete values show --json >/dev/null
check "a flag takes no value" $? 1
"$bin" __complete values reclaimd --size >/dev/null
check "reclaimd --size's value is a cgroup" $? 2
"$bin" __complete values reclaimd --size-max-cpu >/dev/null
check "reclaimd --size-max-cpu's value is not" $? 0

# bash
b() { bash -c 'source "$1/completions/memcgctl.bash"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
	_memcgctl; ((${#COMPREPLY[@]})) && printf "%s " "${COMPREPLY[@]}"' _ "$src" "$@"; }
check "bash: top --sort us" "$(b memcgctl top --sort us)" "usage "
check "bash: top --sort=us" "$(b memcgctl top --sort = us)" "usage "
check "bash: list -o usage,li" "$(b memcgctl list -o usage,li)" "usage,limit "
check "bash: export --families ps" "$(b memcgctl export --families ps)" "psi "
check "bash: no cgroups after --from" "$(b memcgctl --root "$root" dump --from /fix)" ""
check "bash: cgroups after a flag" "$(b memcgctl --root "$root" show --json /fixture/a)" "/fixture/app "
# reclaimd --size CGROUP (repeatable): cgroups, as for a CGROUP argument; its sibling options
# are options, and their values never cgroups
check "bash: reclaimd --size /fixture/a" "$(b memcgctl --root "$root" reclaimd --size /fixture/a)" "/fixture/app "
check "bash: reclaimd --size=/fixture/a" "$(b memcgctl --root "$root" reclaimd --size = /fixture/a)" "/fixture/app "
check "bash: reclaimd --size=" "$(b memcgctl --root "$root" reclaimd --size =)" "/ /fixture /fixture/app /fixture/idle "
check "bash: a second --size" "$(b memcgctl --root "$root" reclaimd -f --size /fixture/app --size /fixture/i)" "/fixture/idle "
check "bash: reclaimd --size-" "$(b memcgctl --root "$root" reclaimd --size-)" "--size-interval= --size-max-cpu= "
check "bash: no cgroups after --size-max-cpu" "$(b memcgctl --root "$root" reclaimd --size /fixture/app --size-max-cpu /fix)" ""
check "bash: no cgroups after --size-interval=" "$(b memcgctl --root "$root" reclaimd --size-interval = /fix)" ""
# container names split at ':' (bash's COMP_WORDBREAKS), after --size and after --size=
fx=$src/tests/cli/fixtures/containers
bl() { MEMCGCTL_STATE_ROOT="$fx/state" bash -c 'source "$1/completions/memcgctl.bash"; COMP_LINE=$2; shift 2
	COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_POINT=${#COMP_LINE}
	_memcgctl; ((${#COMPREPLY[@]})) && printf "%s " "${COMPREPLY[@]}"' _ "$src" "$@"; }
check "bash: reclaimd --size podman:qu" "$(bl "memcgctl --root $fx/cgroup reclaimd --size podman:qu" \
	memcgctl --root "$fx/cgroup" reclaimd --size podman : qu)" "queue "
check "bash: reclaimd --size=podman:qu" "$(bl "memcgctl --root $fx/cgroup reclaimd --size=podman:qu" \
	memcgctl --root "$fx/cgroup" reclaimd --size = podman : qu)" "queue "
check "bash: reclaimd --size=dock" "$(bl "memcgctl --root $fx/cgroup reclaimd --size=dock" \
	memcgctl --root "$fx/cgroup" reclaimd --size = dock)" "docker:web docker:db "

# zsh: a compadd stub prints the candidates and their descriptions
if command -v zsh >/dev/null; then
	z() { zsh -f -c 'compadd() { local -a d; while (( $# )) && [[ $1 != -- ]]; do
			[[ $1 == -d ]] && { d=(${(P)2}); shift; }; shift; done; shift
			print -r -- "${(j:|:)d}"; }
		compset() { return 0; }
		words=("${@:2}"); CURRENT=$#words
		source $1/completions/memcgctl.zsh' _ "$src" "$@" | head -c 200; }
	check "zsh: top --sort us, described" "$(z memcgctl top --sort us | cut -d'|' -f2)" "usage  -- memory charged"
	check "zsh: no cgroups after --from" "$(z memcgctl --root "$root" dump --from x)" ""
	check "zsh: options described" "$(z memcgctl list --fl | cut -d'|' -f1)" \
		"--flat  -- A flat list of whole paths instead of the tree (JSON: one array, no children)"
	# the words compadd gets, and what compset takes off the word first
	zw() { zsh -f -c 'compadd() { while (( $# )) && [[ $1 != -- ]]; do shift; done; shift
			print -r -- "$@"; }
		compset() { print -r -- "compset $*"; }
		words=("${@:2}"); CURRENT=$#words
		source $1/completions/memcgctl.zsh' _ "$src" "$@" | tr '\n' ' '; }
	check "zsh: reclaimd --size /fix" "$(zw memcgctl --root "$root" reclaimd --size /fix)" \
		"/ /fixture /fixture/app /fixture/idle "
	check "zsh: reclaimd --size=/fix" "$(zw memcgctl --root "$root" reclaimd --size=/fix)" \
		"compset -P --size= / /fixture /fixture/app /fixture/idle "
	check "zsh: no cgroups after --size-max-cpu" "$(zw memcgctl --root "$root" reclaimd --size-max-cpu /fix |
		sed 's/compset -P [^ ]* //g')" ""
	zw memcgctl reclaimd --size- | grep -q -- '--size-interval= --size-max-cpu=' ||
		check "zsh: reclaimd --size-" "$(zw memcgctl reclaimd --size-)" "... --size-interval= --size-max-cpu= ..."
fi
# fish: the description follows a tab
if command -v fish >/dev/null; then
	f() { fish -c "source '$src/completions/memcgctl.fish'; complete -C '$1'"; }
	check "fish: top --sort us, described" "$(f 'memcgctl top --sort us')" "usage	memory charged"
	check "fish: no cgroups after --from" "$(f "memcgctl --root $root dump --from /fix")" ""
	check "fish: list -o +hi" "$(f 'memcgctl list -o +hi')" "+high	v2 memory.high (not shown by default)"
	check "fish: reclaimd --size /fixture/a" "$(f "memcgctl --root $root reclaimd --size /fixture/a")" "/fixture/app"
	check "fish: reclaimd --size=/fixture/a" "$(f "memcgctl --root $root reclaimd --size=/fixture/a")" "--size=/fixture/app"
	check "fish: a second --size" "$(f "memcgctl --root $root reclaimd --size /fixture/app --size /fixture/i")" "/fixture/idle"
	check "fish: reclaimd --size-" "$(f 'memcgctl reclaimd --size-' | cut -f1 | tr '\n' ' ')" "--size-interval --size-max-cpu "
	check "fish: no cgroups after --size-max-cpu" "$(f "memcgctl --root $root reclaimd --size-max-cpu /fix")" ""
	check "fish: no cgroups after --size-interval=" "$(f "memcgctl --root $root reclaimd --size-interval=/fix")" ""
fi
echo "completion values: $fails failed"
[ $fails = 0 ]
