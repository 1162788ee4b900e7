top -b -n 1 -o nosuch --root @FIX@/v1/cgroup --proc @FIX@/v1/proc
