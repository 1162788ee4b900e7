#compdef memcgctl
# zsh completion for memcgctl: asks the binary ("memcgctl __complete ...") for commands,
# options and cgroups, so it never drifts from the code.
#
# Cgroup names may hold any byte but '/' and NUL ($(...), backticks, globs, newlines):
# the binary sends them NUL-terminated, they are split with ${(0)...} (one candidate per
# name, newlines included), and compadd quotes what it inserts. Nothing is evaluated.
# _memcgctl_described LINE...: "word<TAB>meaning" lines (ASCII words from the binary's own
# tables) as candidates shown with their meaning; a word ending in '=' takes no space after.
_memcgctl_described() {
	local l w
	local -a ws ds wse dse
	for l in "$@"; do
		w=${l%%$'\t'*}
		[[ -n $w ]] || continue
		if [[ $w == *= ]]; then
			wse+=($w)
			dse+=("$w  -- ${${l#*$'\t'}:-}")
		else
			ws+=($w)
			[[ $l == *$'\t'* ]] && ds+=("$w  -- ${l#*$'\t'}") || ds+=($w)
		fi
	done
	(( ${#ws} )) && compadd -l -d ds -- $ws
	(( ${#wse} )) && compadd -l -S '' -d dse -- $wse
}
_memcgctl() {
	local bin=${words[1]} cmd i
	local -a root
	for ((i = 2; i < CURRENT; i++)); do
		case ${words[i]} in
		--root=*) root=(${words[i]}) ;;
		--root) root=(--root ${(Q)words[i+1]}); ((i++)) ;;
		-*) ;;
		*) cmd=${words[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		if [[ ${words[CURRENT]} == -* ]]; then
			compadd -S '' -- ${(f)"$($bin __complete options 2>/dev/null)"}
		else
			compadd -- ${(f)"$($bin __complete commands 2>/dev/null)"}
		fi
		return
	fi
	# an option's value: its candidates with their meaning, or none, never cgroup paths,
	# unless the value is itself a cgroup ("values" exits 2: reclaimd --size CGROUP)
	local opt=${words[CURRENT-1]} out rc value=0
	[[ ${words[CURRENT]} == --*=* ]] && opt=${words[CURRENT]%%=*}
	if [[ $opt == -* ]]; then
		out=$($bin __complete values $cmd $opt 2>/dev/null)
		rc=$?
		if (( rc == 0 )); then
			compset -P '*='
			compset -P '*[,+]'
			_memcgctl_described ${(f)out}
			return
		fi
		if (( rc == 2 )); then
			value=1
			# --size=web: only the option's own "--size=" (a name may hold '=')
			[[ ${words[CURRENT]} == --*=* ]] && compset -P "${(b)opt}="
		fi
	fi
	if (( ! value )) && [[ ${words[CURRENT]} == -* ]]; then
		_memcgctl_described ${(f)"$($bin __complete described-options $cmd 2>/dev/null)"}
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
	local -a cgs
	cgs=(${(0)"$($bin $root __complete cgroups 2>/dev/null)"})
	compadd -- $cgs
	# systemd units (web.service) are CGROUP arguments too, on the host's own tree
	if (( ${#root} == 0 )) && [[ -d /run/systemd/system ]]; then
		compadd -- ${(f)"$(systemctl list-units --plain --no-legend --full --no-pager \
			--type=service,scope,slice,socket,mount,swap 2>/dev/null | awk '{ print $1 }')"}
	fi
}
_memcgctl "$@"
