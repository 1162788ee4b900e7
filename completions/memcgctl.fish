# fish completion for memcgctl: asks the binary ("memcgctl __complete ...").
#
# Cgroup names may hold any byte but '/' and NUL ($(...), backticks, globs, newlines): the
# binary sends them NUL-terminated and `string split0` as the last step of the command
# substitution keeps each name one candidate. fish escapes what it inserts; nothing is
# evaluated.
function __memcgctl_cmd
	set -l toks (commandline -opc)
	set -l skip 0
	for t in $toks[2..-1]
		if test $skip = 1
			set skip 0
			continue
		end
		if test "$t" = --root
			set skip 1
			continue
		end
		if not string match -q -- '-*' $t
			echo $t
			return 0
		end
	end
	return 1
end
function __memcgctl_root
	set -l toks (commandline -opc)
	set -l next 0
	for t in $toks[2..-1]
		if test $next = 1
			printf '%s\n' --root $t
			return 0
		end
		if test "$t" = --root
			set next 1
		else if string match -q -- '--root=*' $t
			printf '%s\n' $t
			return 0
		end
	end
end
# options with their help: fish shows what follows a tab as the description
function __memcgctl_options
	set -l cmd (__memcgctl_cmd)
	for o in (memcgctl __complete described-options $cmd 2>/dev/null)
		echo (string replace -r '=(\t|$)' '$1' -- $o)
	end
end
# the option before the cursor takes a value: its candidates ("word<TAB>meaning", after the
# last ',' or '+' of a list kept as typed), or none; fails when it takes no value, or when
# its value is a CGROUP ("values" exits 2: reclaimd --size), which the cgroups complete
function __memcgctl_value_opt
	set -l cmd (__memcgctl_cmd); or return 1
	set -l prev (commandline -opc)[-1]
	set -l cur (commandline -ct)
	if string match -q -- '--*=*' $cur
		set prev (string replace -r '=.*' '' -- $cur)
	end
	string match -q -- '-*' $prev; or return 1
	memcgctl __complete values $cmd $prev >/dev/null 2>&1
end
function __memcgctl_values
	set -l cmd (__memcgctl_cmd)
	set -l prev (commandline -opc)[-1]
	set -l cur (commandline -ct)
	set -l pre ''
	if string match -q -- '--*=*' $cur
		set prev (string replace -r '=.*' '' -- $cur)
		set pre (string replace -r '=.*' '=' -- $cur)
		set cur (string replace -r '^[^=]*=' '' -- $cur)
	end
	# quoted: an empty match is an empty string, not an empty list (which would print nothing)
	set -l sep (string match -r -- '^.*[,+]' $cur)
	for l in (memcgctl __complete values $cmd $prev 2>/dev/null)
		echo "$pre$sep$l"
	end
end
function __memcgctl_words
	set -l cmd (__memcgctl_cmd)
	memcgctl __complete words $cmd 2>/dev/null
end
complete -c memcgctl -f
complete -c memcgctl -n 'not __memcgctl_cmd' -a '(memcgctl __complete commands 2>/dev/null)'
complete -c memcgctl -n 'string match -q -- "-*" (commandline -ct)' -a '(__memcgctl_options)'
complete -c memcgctl -n '__memcgctl_value_opt' -a '(__memcgctl_values)'
complete -c memcgctl -n '__memcgctl_cmd; and not __memcgctl_value_opt' -a '(__memcgctl_words)'
# cgroups, NUL-terminated (split0 the last step, so a name with a newline stays one); the
# value of --opt= at the cursor, an option whose value is a CGROUP (reclaimd --size=web:
# "values" exits 2), gets "--opt=" before each, as fish matches the whole token
function __memcgctl_cgroups
	set -l cmd (__memcgctl_cmd)
	set -l cur (commandline -ct)
	set -l pre ''
	if string match -q -- '--*=*' $cur
		set -l opt (string replace -r '=.*' '' -- $cur)
		memcgctl __complete values $cmd $opt >/dev/null 2>&1
		test $status = 2; or return 0
		set pre "$opt="
	end
	set -l names (memcgctl (__memcgctl_root) __complete cgroups 2>/dev/null | string split0)
	string join0 -- $pre$names
end
complete -c memcgctl -n '__memcgctl_cmd; and not __memcgctl_value_opt' -a '(__memcgctl_cgroups | string split0)'
# systemd units (web.service) are CGROUP arguments too, on the host's own tree
function __memcgctl_units
	test -z "(__memcgctl_root)"; and test -d /run/systemd/system; or return 0
	systemctl list-units --plain --no-legend --full --no-pager \
		--type=service,scope,slice,socket,mount,swap 2>/dev/null | string replace -r ' .*' ''
end
complete -c memcgctl -n '__memcgctl_cmd; and not __memcgctl_value_opt' -a '(__memcgctl_units)'
