# Where enet-rs spends a message inside `enet_host_service`, from the
# output of `callgrind_annotate --tree=calling --inclusive=yes
# --threshold=100`: what the calls to each engine function named in
# `-v stages="NAME..."` cost, inclusive, summed over every call site, on
# one line in that order (0 for a name never called, such as a function
# the compiler inlined). Call arcs are used rather than a function's own
# `*` lines because callgrind_annotate splits those by source file (the
# parts inlined from other files, and the same file under an absolute and
# a relative path). Used by bench/callgrind.sh --stages, which turns the
# totals into stages by difference.
function count(field) { gsub(/,/, "", field); return field + 0 }
BEGIN { n = split(stages, names, " ") }
/^ *[0-9,]+ \( *[0-9.]+%\)  >   / {
    for (i = 1; i <= n; i++)
        if (index($0, ":" names[i] " (") > 0) cost[names[i]] += count($1)
}
END {
    for (i = 1; i <= n; i++) printf "%s%d", (i > 1 ? " " : ""), cost[names[i]]
    printf "\n"
}
