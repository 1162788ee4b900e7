top -b -n 1 -o cgroup,usage,usage_percent,%LIM --noheadings --raw --root @FIX@/v2/cgroup --proc @FIX@/v2/proc
