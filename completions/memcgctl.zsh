#compdef memcgctl
# zsh completion for memcgctl: asks the binary ("memcgctl __complete ...") for commands,
# options and cgroups, so it never drifts from the code.
_memcgctl() {
	local bin=${words[1]} cmd i
	for ((i = 2; i < CURRENT; i++)); do
		[[ ${words[i]} != -* ]] && { cmd=${words[i]}; break; }
	done
	if [[ -z $cmd ]]; then
		if [[ ${words[CURRENT]} == -* ]]; then
			compadd -S '' -- ${(f)"$($bin __complete options 2>/dev/null)"}
		else
			compadd -- ${(f)"$($bin __complete commands 2>/dev/null)"}
		fi
		return
	fi
	if [[ ${words[CURRENT]} == -* ]]; then
		compadd -S '' -- ${(f)"$($bin __complete options $cmd 2>/dev/null)"}
		return
	fi
	if [[ $cmd == help ]]; then
		compadd -- ${(f)"$($bin __complete commands 2>/dev/null)"}
		return
	fi
	local -a subs
	subs=(${(f)"$($bin __complete words $cmd 2>/dev/null)"})
	if (( ${#subs} )) && [[ ${words[CURRENT-1]} == $cmd ]]; then
		compadd -- $subs
		return
	fi
	compadd -- ${(f)"$($bin __complete cgroups 2>/dev/null)"}
}
_memcgctl "$@"
