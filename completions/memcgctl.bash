# bash completion for memcgctl: everything comes from the binary ("memcgctl __complete ..."),
# so commands and options never drift from the code.
#
# Cgroup names are chosen by whoever can mkdir: they may hold $(...), backticks, globs,
# spaces and newlines. So no word list is ever expanded (no compgen -W "$(...)"): lists
# are read with mapfile (cgroups NUL-separated), filtered by a literal prefix match, and
# what is inserted is quoted with printf %q.

# _memcgctl_add PREFIX WORD...: append the words starting with PREFIX (literally), quoted.
_memcgctl_add()
{
	local cur=$1 w q
	shift
	for w in "$@"; do
		printf -v q '%q' "$w"
		# what was typed may be the plain text or its quoted form
		if [[ $w == "$cur"* || $q == "$cur"* ]]; then
			COMPREPLY+=("$q")
		fi
	done
}

# _memcgctl_lines PREFIX CMD...: the newline-separated words CMD prints.
_memcgctl_lines()
{
	local cur=$1 list
	shift
	mapfile -t list < <("$@" 2>/dev/null)
	_memcgctl_add "$cur" "${list[@]}"
}

# _memcgctl_values BIN CMD: when the word is an option's value (--sort X, -o X, --sort=X;
# bash splits on '='), add its candidates from "BIN __complete values CMD OPT" (after the
# last ',' or '+' of a list) and succeed; fail (1) when the option takes no value; 2 when
# its value is a CGROUP (reclaimd --size): the caller completes cgroups then.
_memcgctl_values()
{
	local bin=$1 cmd=$2 opt=$prev vcur=$cur out line word pre last rc
	if [[ $prev == = ]]; then
		opt=${COMP_WORDS[COMP_CWORD-2]}
	elif [[ $cur == = ]]; then
		vcur=
	fi
	[[ $opt == -* ]] || return 1
	out=$("$bin" __complete values "$cmd" "$opt" 2>/dev/null)
	rc=$?
	((rc == 2)) && return 2
	((rc == 0)) || return 1
	last=${vcur##*[,+]}
	pre=${vcur%"$last"}
	while IFS= read -r line; do
		word=${line%%$'\t'*}
		[[ -n $word && $word == "$last"* ]] && COMPREPLY+=("$pre$word")
	done <<<"$out"
	return 0
}

_memcgctl()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local bin=${COMP_WORDS[0]} cmd="" i w root=() list

	COMPREPLY=()
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--root=*) root=("$w") ;;
		--root) root=(--root "${COMP_WORDS[i+1]}"); ((i++)) ;;
		-*) ;;
		*) cmd=$w; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			_memcgctl_lines "$cur" "$bin" __complete options
		else
			_memcgctl_lines "$cur" "$bin" __complete commands
		fi
		[[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return 0
	fi
	case $prev in
	--root|--proc|--run-dir|--state-dir)
		mapfile -t list < <(compgen -d -- "$cur")
		COMPREPLY=()
		for w in "${list[@]}"; do
			printf -v w '%q' "$w"
			COMPREPLY+=("$w")
		done
		return 0
		;;
	esac
	# an option's value: its candidates (columns, families) or none, never cgroup paths,
	# unless the value is itself a cgroup (reclaimd --size CGROUP, --size=CGROUP)
	local value=0
	_memcgctl_values "$bin" "$cmd"
	case $? in
	0) return 0 ;;
	2) value=1; [[ $cur == = ]] && cur= ;;
	esac
	if ((!value)) && [[ $cur == -* ]]; then
		_memcgctl_lines "$cur" "$bin" __complete options "$cmd"
		[[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return 0
	fi
	if [[ $cmd == help ]]; then
		_memcgctl_lines "$cur" "$bin" __complete commands
		return 0
	fi
	mapfile -t list < <("$bin" __complete words "$cmd" 2>/dev/null)
	if ((${#list[@]})) && [[ $prev == "$cmd" ]]; then
		_memcgctl_add "$cur" "${list[@]}"
		return 0
	fi
	# cgroup paths, then container and pod names (docker:web, pod:shop/api)
	mapfile -d '' -t list < <("$bin" "${root[@]}" __complete cgroups 2>/dev/null)
	# bash splits words at ':' (COMP_WORDBREAKS): match the whole word up to the cursor,
	# and insert what follows its last ':', which is all readline replaces
	local line=${COMP_LINE:0:COMP_POINT} full n
	full=${line##*[[:space:]]}
	# --size=docker:we: the value is what follows the option's '=' (bash split at both)
	if [[ $full == --*=* ]] && { ((value)) || { "$bin" __complete values "$cmd" \
		"${full%%=*}" >/dev/null 2>&1; (($? == 2)); }; }; then
		full=${full#*=}
	fi
	if [[ $COMP_WORDBREAKS == *:* && $full == *:* ]]; then
		n=${#COMPREPLY[@]}
		_memcgctl_add "$full" "${list[@]}"
		for ((i = n; i < ${#COMPREPLY[@]}; i++)); do
			COMPREPLY[i]=${COMPREPLY[i]#"${full%:*}:"}
		done
		return 0
	fi
	_memcgctl_add "$cur" "${list[@]}"
	# systemd units (web.service) are CGROUP arguments too, on the host's own tree
	if ((${#root[@]} == 0)) && [[ $cur != /* && -d /run/systemd/system ]]; then
		mapfile -t list < <(_memcgctl_units)
		_memcgctl_add "$cur" "${list[@]}"
	fi
	return 0
}

# The loaded units of the types that own a cgroup, one name a line (systemd escapes unit
# names to [A-Za-z0-9:_.\@-]: no blanks, no newlines).
_memcgctl_units()
{
	systemctl list-units --plain --no-legend --full --no-pager \
		--type=service,scope,slice,socket,mount,swap 2>/dev/null | awk '{ print $1 }'
}
complete -F _memcgctl memcgctl
