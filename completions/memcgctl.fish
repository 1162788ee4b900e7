# fish completion for memcgctl: asks the binary ("memcgctl __complete ...").
function __memcgctl_cmd
	set -l toks (commandline -opc)
	for t in $toks[2..-1]
		if not string match -q -- '-*' $t
			echo $t
			return 0
		end
	end
	return 1
end
function __memcgctl_options
	set -l cmd (__memcgctl_cmd)
	for o in (memcgctl __complete options $cmd 2>/dev/null)
		echo (string replace -r '=$' '' -- $o)
	end
end
function __memcgctl_words
	set -l cmd (__memcgctl_cmd)
	memcgctl __complete words $cmd 2>/dev/null
	memcgctl __complete cgroups 2>/dev/null
end
complete -c memcgctl -f
complete -c memcgctl -n 'not __memcgctl_cmd' -a '(memcgctl __complete commands 2>/dev/null)'
complete -c memcgctl -n 'string match -q -- "-*" (commandline -ct)' -a '(__memcgctl_options)'
complete -c memcgctl -n '__memcgctl_cmd' -a '(__memcgctl_words)'
