# scenario-groups.cmake: how the QEMU tiers (tests/real-v2, tests/real-systemd) split their
# scenarios into one boot per group, so that a failure names its group and no boot runs into
# run-guest.sh's time limit as scenarios are added.
#
# memcg_scenario_groups(PREFIX COMMANDS SCENARIO...): each SCENARIO goes to the group of the
# command its file name starts with (COMMANDS, a regex alternation of command names);
# recover's to set-limit's, reclaimd's to async's, the rest to core. Sets PREFIX_GROUPS (the
# group names) and PREFIX_GROUP_<group> (its scenarios) in the caller's scope.
function(memcg_scenario_groups prefix commands)
	set(groups "")
	foreach(sc ${ARGN})
		get_filename_component(name ${sc} NAME_WE)
		string(REGEX MATCH "^(${commands})" cmd ${name})
		if(cmd STREQUAL "recover")
			set(cmd set-limit)
		elseif(cmd STREQUAL "reclaimd")
			set(cmd async)
		elseif(NOT cmd)
			set(cmd core)
		endif()
		list(APPEND members_${cmd} ${sc})
		list(APPEND groups ${cmd})
	endforeach()
	list(REMOVE_DUPLICATES groups)
	foreach(group ${groups})
		set(${prefix}_GROUP_${group} ${members_${group}} PARENT_SCOPE)
	endforeach()
	set(${prefix}_GROUPS ${groups} PARENT_SCOPE)
endfunction()
