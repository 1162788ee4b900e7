dirty --list-columns
