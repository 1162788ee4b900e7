# bash completion for memcgctl: everything comes from the binary ("memcgctl __complete ..."),
# so commands and options never drift from the code.
_memcgctl()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local bin=${COMP_WORDS[0]} cmd="" i w root=()

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
			COMPREPLY=($(compgen -W "$("$bin" __complete options 2>/dev/null)" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$("$bin" __complete commands 2>/dev/null)" -- "$cur"))
		fi
		[[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return 0
	fi
	case $prev in
	--root|--proc|--run-dir|--state-dir) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$("$bin" __complete options "$cmd" 2>/dev/null)" -- "$cur"))
		[[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return 0
	fi
	if [[ $cmd == help ]]; then
		COMPREPLY=($(compgen -W "$("$bin" __complete commands 2>/dev/null)" -- "$cur"))
		return 0
	fi
	local words
	words=$("$bin" __complete words "$cmd" 2>/dev/null)
	if [[ -n $words && $prev == "$cmd" ]]; then
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return 0
	fi
	COMPREPLY=($(compgen -W "$("$bin" "${root[@]}" __complete cgroups 2>/dev/null)" -- "$cur"))
	return 0
}
complete -F _memcgctl memcgctl
