# One traffic kind's rows of bench/callgrind.sh's table, from the per-message
# fields of `counts` for stock (-v s) and ours (-v o): the whole process and
# libenet's own code; with -v parts=1 the entry points and the allocator
# (-v names); with -v stages=1 ours inside enet_host_service, stage by
# stage, each stage the difference of the engine functions' inclusive
# counts (in the order of callgrind.sh's $stage_names) that leaves out the
# functions it calls.
function row(name, value) { printf "%-57s %10d\n", "    " name, value }
BEGIN {
    split(s, st, " "); split(o, ot, " ")
    printf "%-36s %10d %10d %7.2fx\n", l ", whole process", st[1], ot[1], ot[1] / st[1]
    printf "%-36s %10d %10d %7.2fx\n", l ", in libenet code", st[2], ot[2], ot[2] / st[2]
    next_field = 3
    if (parts) {
        n = split(names, name, " ")
        name[++n] = "C allocator, any caller"
        for (i = 1; i <= n; i++)
            printf "%-36s %10d %10d\n", "  " name[i], st[i + 2], ot[i + 2]
        next_field += n
    }
    if (!stages) exit
    service = ot[next_field]; received = ot[next_field + 1]; retired = ot[next_field + 2]
    delivered = ot[next_field + 3]; dispatched = ot[next_field + 4]
    send_pass = ot[next_field + 5]; packed = ot[next_field + 6]; reads = ot[next_field + 7]
    fragments = ot[next_field + 8]
    # A run of datagrams from one peer reschedules it once, after the run.
    received += ot[next_field + 9]
    printf "  ours inside enet_host_service (%d), by stage:\n", service
    row("receiving: parse, round trip, acknowledgements queued",
        received - retired - delivered - fragments)
    row("acknowledged commands retired (packets released)", retired)
    row("packets ordered and delivered (packets made)", delivered)
    row("fragments reassembled", fragments)
    row("packets handed to the program", dispatched)
    row("commands packed into datagrams", packed)
    row("the rest of the send pass: datagrams sent, timers", send_pass - packed)
    row("socket reads", reads)
    row("the rest: the service loop, events, time, empty send phases",
        service - received - dispatched - send_pass - reads)
}
