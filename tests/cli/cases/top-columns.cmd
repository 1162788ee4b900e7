top --list-columns
