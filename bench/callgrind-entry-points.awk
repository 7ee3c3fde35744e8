# Inclusive instruction counts of what the program spends in each ENet
# entry point named in `-v entry_points="NAME..."`, and in the C allocator
# from any caller, from the output of `callgrind_annotate --tree=calling
# --inclusive=yes --threshold=100`. Prints the counts on one line, in the
# order of the names, the allocator's last; used by bench/callgrind.sh.
# The calls from `main` are exact call-arc costs, so a library's inlining
# cannot move instructions between the rows. The first call of each goes
# through the lazy-binding trampoline and is counted there, not here; the
# script's difference of two runs cancels it.
function count(field) { gsub(/,/, "", field); return field + 0 }
/\*  .*:main \[/ { in_main = 1; next }
/\*  / { in_main = 0 }
in_main && />   / {
    for (i = 1; i <= n; i++)
        if (index($0, ":" names[i] " (") > 0) cost[names[i]] += count($1)
}
/\*  .*libc\.so/ && (/:malloc \[/ || /:free \[/ || /:calloc \[/ || /:realloc \[/) {
    allocator += count($1)
}
BEGIN { n = split(entry_points, names, " ") }
END {
    for (i = 1; i <= n; i++) printf "%d ", cost[names[i]]
    printf "%d\n", allocator
}
