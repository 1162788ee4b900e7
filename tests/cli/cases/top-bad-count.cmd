top -b -n 0 --root @FIX@/v1/cgroup
