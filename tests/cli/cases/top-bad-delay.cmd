top -b -d 10ms --root @FIX@/v1/cgroup
