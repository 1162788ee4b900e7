dirty -d 1s --root @FIX@/v1/cgroup --proc @FIX@/v1/proc /fixture/app
