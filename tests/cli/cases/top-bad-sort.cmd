top -b -s bogus --root @FIX@/v1/cgroup
