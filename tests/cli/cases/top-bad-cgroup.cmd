top -b -n 1 /nonexistent --root @FIX@/v1/cgroup --proc @FIX@/v1/proc
