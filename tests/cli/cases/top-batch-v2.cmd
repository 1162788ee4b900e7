top -b -n 2 -d 0.1 --root @FIX@/v2/cgroup --proc @FIX@/v2/proc
