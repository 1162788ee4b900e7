top -b -n 2 -d 0.1 --root @FIX@/v1/cgroup --proc @FIX@/v1/proc
