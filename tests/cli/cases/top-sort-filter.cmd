top -b -n 1 -s usage -f app --flat --root @FIX@/v2/cgroup --proc @FIX@/v2/proc
