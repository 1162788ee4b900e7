async-reclaim --list-columns
