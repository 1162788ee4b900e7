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

# bash
b() { bash -c 'source "$1/completions/memcgctl.bash"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
	_memcgctl; ((${#COMPREPLY[@]})) && printf "%s " "${COMPREPLY[@]}"' _ "$src" "$@"; }
check "bash: top --sort us" "$(b memcgctl top --sort us)" "usage "
check "bash: top --sort=us" "$(b memcgctl top --sort = us)" "usage "
check "bash: list -o usage,li" "$(b memcgctl list -o usage,li)" "usage,limit "
check "bash: export --families ps" "$(b memcgctl export --families ps)" "psi "
check "bash: no cgroups after --from" "$(b memcgctl --root "$root" dump --from /fix)" ""
check "bash: cgroups after a flag" "$(b memcgctl --root "$root" show --json /fixture/a)" "/fixture/app "

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
fi
# fish: the description follows a tab
if command -v fish >/dev/null; then
	f() { fish -c "source '$src/completions/memcgctl.fish'; complete -C '$1'"; }
	check "fish: top --sort us, described" "$(f 'memcgctl top --sort us')" "usage	memory charged"
	check "fish: no cgroups after --from" "$(f "memcgctl --root $root dump --from /fix")" ""
	check "fish: list -o +hi" "$(f 'memcgctl list -o +hi')" "+high	v2 memory.high (not shown by default)"
fi
echo "completion values: $fails failed"
[ $fails = 0 ]
