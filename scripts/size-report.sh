#!/usr/bin/env bash
# What a built library is made of: its size once stripped, its code per
# crate and its sections. Works on the unstripped ELF shared library
# (libenet.so) and on the unstripped PE DLL (enet.dll); it reads symbols,
# so give it the build's own output, not a stripped copy.
#
# A crate is the first path segment of a demangled Rust symbol (for
# `<Type as Trait>::f`, the type's; for a primitive type, the trait's).
# Symbols with no path (C and assembly from ring and the C runtime, and our
# own `#[no_mangle]` exports) are one row. ELF symbols carry their sizes
# (nm -S); PE symbols have none, so a symbol's size there is the gap to the
# next symbol in `.text`, which also counts padding and code that has no
# symbol of its own.
#
# usage: scripts/size-report.sh LIBRARY [ROWS]   (ROWS: 25 unless given)
# Tools: binutils for ELF, mingw-w64's for PE (x86_64-w64-mingw32- or
# i686-w64-mingw32-, chosen from the file's format). NM, STRIP and SIZE in
# the environment override the choice (e.g. llvm-nm for another ELF
# architecture).
set -euo pipefail
lib=${1:?usage: size-report.sh LIBRARY [ROWS]}
rows=${2:-25}
[ -f "$lib" ] || { echo "size-report.sh: no file $lib" >&2; exit 1; }

magic=$(head -c 4 "$lib" | od -An -tx1 | tr -d ' \n')
case "$magic" in
    7f454c46) format=elf prefix="" ;;
    4d5a*)
        format=pe
        # The machine field of the COFF header, after the PE signature
        # whose offset is at 0x3c: 0x8664 is x86_64, 0x14c is i386.
        pe_off=$(od -An -tu4 -j 60 -N 4 "$lib" | tr -d ' ')
        machine=$(od -An -tx2 -j $((pe_off + 4)) -N 2 "$lib" | tr -d ' ')
        case "$machine" in
            8664) prefix=x86_64-w64-mingw32- ;;
            014c) prefix=i686-w64-mingw32- ;;
            *) echo "size-report.sh: PE machine $machine not handled" >&2; exit 1 ;;
        esac ;;
    *) echo "size-report.sh: $lib is neither ELF nor PE" >&2; exit 1 ;;
esac
NM=${NM:-${prefix}nm} STRIP=${STRIP:-${prefix}strip} SIZE=${SIZE:-${prefix}size}
for tool in "$NM" "$STRIP" "$SIZE"; do
    command -v "$tool" >/dev/null || { echo "size-report.sh: missing $tool" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$STRIP" -o "$work/stripped" "$lib"
stripped=$(stat -c %s "$work/stripped")
printf '%s (%s)\n' "$lib" "$format"
printf 'file size: %d bytes; stripped (%s): %d bytes (%.2f MiB)\n' \
    "$(stat -c %s "$lib")" "$STRIP" "$stripped" "$(echo "$stripped / 1048576" | bc -l)"

# The text section's bounds (the last PE symbol's size runs to its end).
read -r text_start text_size < <("$SIZE" -A -x "$lib" |
    awk '$1 == ".text" { print $3, $2 }')
[ -n "${text_size:-}" ] || { echo "size-report.sh: no .text in $lib" >&2; exit 1; }

# Hex to number in awk (Debian's default awk, mawk, has no strtonum).
hex='function hex(s,  i, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
        for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
        return v }'
# One line per code symbol: size, then demangled name.
if [ "$format" = elf ]; then
    "$NM" -S --size-sort -C --defined-only "$lib" |
        awk "$hex"'
            $3 ~ /^[tTwWiu]$/ { size = hex($2); name = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", name); print size "\t" name }' \
        >"$work/symbols"
else
    # Every symbol at an address in .text, in address order; aliases at
    # one address count once (the last one named gets the code).
    "$NM" -n -C --defined-only "$lib" |
        awk -v start=$((text_start)) -v end=$((text_start + text_size)) "$hex"'
            NF >= 3 {
                addr = hex($1)
                if (addr < start || addr >= end) next
                name = $0; sub(/^[^ ]+ [^ ]+ /, "", name)
                if (n > 0 && addr > last) print addr - last "\t" lastname
                if (n == 0 && addr > start) print addr - start "\t(before the first symbol)"
                last = addr; lastname = name; n++
            }
            END { if (n > 0) print end - last "\t" lastname }' >"$work/symbols"
fi
[ -s "$work/symbols" ] || { echo "size-report.sh: no code symbols in $lib (stripped?)" >&2; exit 1; }

# Crate of each symbol, summed.
awk -F'\t' '
    function crate_of(name,    s, self, trait) {
        s = name
        # `<Self as Trait>::f` and `<Self>::f`: Self decides, unless it is
        # a primitive, slice, reference or pointer, which belong to no crate.
        if (substr(s, 1, 1) == "<") {
            s = substr(s, 2)
            while (match(s, /^(&|\*const |\*mut |mut |dyn |\[|\(|&mut )/)) s = substr(s, RLENGTH + 1)
            if (match(s, / as /) && !index(substr(s, 1, RSTART), "::")) {
                trait = substr(s, RSTART + 4)
                sub(/^(dyn |&)/, "", trait)
                if (index(trait, "::")) s = trait
            }
        }
        if (!match(s, /^[A-Za-z_][A-Za-z0-9_]*::/)) return "[C, asm, #[no_mangle]]"
        return substr(s, 1, RLENGTH - 2)
    }
    { size[crate_of($2)] += $1; total += $1; count++ }
    END {
        for (c in size) printf "%d\t%s\n", size[c], c
        printf "%d\t%s\n", total, "\001total"
    }' "$work/symbols" | sort -t$'\t' -k1,1nr >"$work/crates"

echo
echo "code per crate (${format^^} symbols; $( [ "$format" = pe ] && echo 'sizes from address gaps' || echo 'nm -S sizes')):"
total=$(awk -F'\t' '$2 == "\001total" { print $1 }' "$work/crates")
grep -v $'\001total' "$work/crates" | head -n "$rows" |
    awk -F'\t' -v total="$total" '{ printf "  %9d  %5.1f%%  %s\n", $1, 100 * $1 / total, $2 }'
shown=$(grep -v $'\001total' "$work/crates" | head -n "$rows" | awk -F'\t' '{ s += $1 } END { print s + 0 }')
others=$(grep -vc $'\001total' "$work/crates" || true)
[ "$others" -le "$rows" ] ||
    printf '  %9d  %5.1f%%  (%d more crates)\n' $((total - shown)) \
        "$(echo "100 * ($total - $shown) / $total" | bc -l)" $((others - rows))
printf '  %9d  total in symbols; .text is %d\n' "$total" "$((text_size))"

echo
echo "sections of the stripped file (bytes):"
"$SIZE" -A -d "$work/stripped" | awk 'NR > 2 && $1 != "Total" && NF >= 2 { printf "  %-16s %9d\n", $1, $2 }'
"$SIZE" -A -d "$lib" | awk '$1 ~ /^\.(debug|zdebug)/ { d += $2 } END { if (d) printf "  (debug sections in the unstripped file: %d)\n", d }'
