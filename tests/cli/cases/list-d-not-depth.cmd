list -d 1 --root @FIX@/v1/cgroup
