dirty -o cgroup,dirty_bytes,state,level --noheadings --root @FIX@/v2/cgroup --proc @FIX@/v2/proc
