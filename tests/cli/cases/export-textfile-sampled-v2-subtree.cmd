export --root @FIX@/v2/cgroup --proc @FIX@/v2/proc --families limits --textfile @FIX@/v2 -d 100ms -n 2 /fixture/idle
