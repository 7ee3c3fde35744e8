# Exclusive instruction counts (Ir) per object file of a callgrind output
# file, one "COUNT PATH" line per object; used by bench/callgrind.sh.
/^c?ob=/ {
    line = $0; sub(/^c?ob=/, "", line)
    id = line; sub(/ .*/, "", id)
    name = line; if (sub(/^\([0-9]+\) /, "", name)) names[id] = name
    if ($0 ~ /^ob=/) current = id
    next
}
/^calls=/ { skip_next = 1; next }
/^[0-9+*-]/ { if (skip_next) { skip_next = 0; next } cost[current] += $2 }
END { for (id in cost) printf "%d %s\n", cost[id], names[id] }
