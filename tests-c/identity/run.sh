#!/usr/bin/env bash
# The release identities of a CMake build (docs/packaging.md, "Release
# identities"): for each build given, that it stages and installs the
# identity's library, headers and version, and that programs compiled
# against its installed headers run on its library; then, for the 1.3.18
# identity, the interop matrices against stock 1.3.17 and the 1.3.18
# reference peer.
#
# usage: run.sh [--ours-1317 BUILD] [--ours-1318 BUILD] [--no-interop]
#               [--only SUBSTRING] [--skip SUBSTRING]...
#   --ours-1317 BUILD  a CMake build directory of the default identity
#                      (CI: build, configured without ENET_RS_IDENTITY)
#   --ours-1318 BUILD  one of the 1.3.18 identity (CI: build-1.3.18,
#                      -DENET_RS_IDENTITY=1.3.18 -DENET_RS_BUILD_TESTS=OFF)
#   --no-interop       only the build and program checks
#   --only, --skip     passed to both interop runs (run_matrix.sh's
#                      options: cases whose name contains SUBSTRING)
# At least one build. Per identity it checks:
#   - BUILD/lib holds libenet.so.7.0.5 (1.3.17) or .0.6 (1.3.18), with
#     SONAME libenet.so.7, and the links libenet.so.7 and libenet.so;
#   - `cmake --install BUILD` (Runtime and Development) into a scratch DESTDIR installs that library,
#     the identity's header set (include/enet or include/1.3.18/enet, byte
#     for byte), libenet.pc with Version 1.3.17 or 1.3.18, and a CMake
#     package of that version;
#   - identity_check.c and tests-c/compat_1_3_18.c, compiled against the
#     installed headers and linked to the installed library, pass.
# The default identity's interop is the CI steps that run run_matrix.sh
# and run_1318.sh on build/lib (scripts/test-all.sh).
# Each check prints "ok ..." or "FAIL ..."; every part prints its time;
# the exit status is non-zero if any check failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

die() { echo "run.sh: $*" >&2; exit 2; }

builds=()
interop=1
matrix_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --ours-1317|--ours-1318)
            [ $# -ge 2 ] || die "$1 needs a build directory"
            [ -d "$2" ] || die "$1: no directory $2"
            builds+=("1.3.${1#--ours-13}=$(cd "$2" && pwd)")
            shift ;;
        --no-interop) interop=0 ;;
        --only|--skip)
            [ $# -ge 2 ] || die "$1 needs a pattern"
            matrix_args+=("$1" "$2")
            shift ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        *) die "unknown argument $1 (see --help)" ;;
    esac
    shift
done
[ ${#builds[@]} -gt 0 ] || die "give --ours-1317 BUILD and/or --ours-1318 BUILD (see --help)"

work=$(mktemp -d /tmp/enet-identity.XXXXXX)
trap 'rm -rf "$work"' EXIT
failed=0

check() { # check DESCRIPTION COMMAND...: runs COMMAND, reports it
    local description=$1
    shift
    if "$@" >"$work/check.log" 2>&1; then
        echo "ok   $description"
    else
        echo "FAIL $description"
        sed 's/^/     /' "$work/check.log"
        failed=$((failed + 1))
    fi
}

# Predicates for check, each failing with a line saying why.
is_equal() { [ "$1" = "$2" ] || { echo "got '$1', expected '$2'"; return 1; }; }
has_soname() { is_equal "$(readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" "$2"; }
links_to() { is_equal "$(readlink "$1")" "$2"; }
pc_version_is() { is_equal "$(sed -n 's/^Version: *//p' "$1")" "$2"; }
package_version_is() {
    is_equal "$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$1")" "$2"
}
# Called from check, that is inside an `if`, where `set -e` is off: each
# step that can fail returns.
compile_and_run() { # compile_and_run OUT INCLUDE LIBDIR SOURCE [CFLAGS...]
    local out=$1 include=$2 libdir=$3 source=$4
    shift 4
    gcc -std=c99 -Wall -Wextra -Wpedantic -Werror "$@" -I "$include" -I "$repo/tests-c" \
        "$source" -L "$libdir" -Wl,-rpath,"$libdir" -lenet -o "$out" || return 1
    # The run-time path must reach the installed library, not another.
    local loaded
    loaded=$(ldd "$out")
    grep -qF "libenet.so.7 => $libdir/libenet.so.7 " <<<"$loaded" \
        || { echo "$out does not load $libdir/libenet.so.7:"; echo "$loaded"; return 1; }
    "$out"
}

now() { date +%s.%N; }
took() { printf '%s took %.1f s\n' "$1" "$(echo "$(now) - $2" | bc)"; }

for entry in "${builds[@]}"; do
    release=${entry%%=*} build=${entry#*=}
    start=$(now)
    case "$release" in
        1.3.17) file=libenet.so.7.0.5 patch=17 mtu=1400 headers=include/enet ;;
        1.3.18) file=libenet.so.7.0.6 patch=18 mtu=1392 headers=include/1.3.18/enet ;;
    esac
    echo "== identity $release: $build"
    lib=$build/lib
    check "staged $file, a file" test -f "$lib/$file" -a ! -L "$lib/$file"
    check "its SONAME is libenet.so.7" has_soname "$lib/$file" libenet.so.7
    check "libenet.so.7 -> $file" links_to "$lib/libenet.so.7" "$file"
    check "libenet.so -> libenet.so.7" links_to "$lib/libenet.so" libenet.so.7

    dest=$work/dest-$release
    # The library's and the -dev files' components: the Tools component
    # (enetperf) is not part of an identity, and CI builds only the library.
    for component in Runtime Development; do
        check "cmake --install --component $component into a DESTDIR" \
            env DESTDIR="$dest" cmake --install "$build" --prefix /usr --component "$component"
    done
    libdir=$(dirname "$(find "$dest" -name libenet.so.7 -print -quit)")
    check "installed $file (in ${libdir#"$dest"})" test -f "$libdir/$file"
    check "installed libenet.so.7 -> $file" links_to "$libdir/libenet.so.7" "$file"
    check "libenet.pc says Version: $release" pc_version_is "$libdir/pkgconfig/libenet.pc" "$release"
    check "the CMake package says $release" \
        package_version_is "$libdir/cmake/enet/enetConfigVersion.cmake" "$release"
    check "installed headers are $headers" diff -r "$repo/$headers" "$dest/usr/include/enet"

    check "identity_check.c: linked version 1.3.$patch, host mtu $mtu" \
        compile_and_run "$work/identity_check-$release" "$dest/usr/include" "$libdir" \
        "$here/identity_check.c" -DEXPECTED_PATCH=$patch -DEXPECTED_MTU=$mtu
    sed 's/^/     /' "$work/check.log"
    check "compat_1_3_18.c (1.3.18's API)" \
        compile_and_run "$work/compat-$release" "$dest/usr/include" "$libdir" \
        "$repo/tests-c/compat_1_3_18.c"
    took "identity $release" "$start"

    if [ "$release" = 1.3.18 ] && [ $interop -eq 1 ]; then
        start=$(now)
        echo "== identity 1.3.18: interop with stock 1.3.17 (run_matrix.sh)"
        check "run_matrix.sh --ours $lib ${matrix_args[*]}" \
            "$repo/tests-c/interop/run_matrix.sh" --ours "$lib" "${matrix_args[@]}"
        tail -n 2 "$work/check.log" | sed 's/^/     /'
        took "interop with stock 1.3.17" "$start"
        start=$(now)
        echo "== identity 1.3.18: interop with the 1.3.18 reference peer (run_1318.sh)"
        check "run_1318.sh --ours $lib ${matrix_args[*]}" \
            "$repo/tests-c/interop/run_1318.sh" --ours "$lib" "${matrix_args[@]}"
        tail -n 2 "$work/check.log" | sed 's/^/     /'
        took "interop with 1.3.18" "$start"
    fi
done

if [ $failed -ne 0 ]; then
    echo "$failed checks failed"
    exit 1
fi
echo "all checks passed"
