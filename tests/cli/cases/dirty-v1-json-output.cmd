dirty -o cgroup,limit --json --root @FIX@/v1/cgroup --proc @FIX@/v1/proc /fixture/app
