# Sourced by the Windows test scripts: runs wine in the project's own
# prefix (never the user's ~/.wine), quietly, without the Mono and Gecko
# installers a new prefix would ask for, and with the test-only
# bcryptprimitives.dll stand-in (see bcryptprimitives.c) on wine's PATH.
# The prefix is ours alone, so `wine_stop` stops only what our tests
# started.
# usage: . tests-c/windows/wine-env.sh   (from bash; sets the WINE* variables)
#   ENET_WIN_TARGET=i686-pc-windows-gnu: 32-bit wine (see below)
wine_env_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
wine_env_root=$(cd "$wine_env_here/../.." && pwd)
# ENET_WIN_TARGET picks the wine: x86_64-pc-windows-gnu (the default) runs
# the system's wine in target/wine; i686-pc-windows-gnu runs Debian's
# 32-bit wine (wine32:i386), which scripts/setup-targets.sh unpacks into a
# private root, in a 32-bit prefix of its own under target/wine32.
# Exported, so programs that source this again (wine-run.sh as the cargo
# runner or the interop launcher) pick the same one.
export ENET_WIN_TARGET=${ENET_WIN_TARGET:-x86_64-pc-windows-gnu}
# shellcheck source=../../scripts/lib/windows-targets.sh
. "$wine_env_root/scripts/lib/windows-targets.sh"
windows_target "$ENET_WIN_TARGET" || { return 1 2>/dev/null || exit 1; }
wine_env_mingw_lib=/usr/$WT_MINGW/lib
case "$ENET_WIN_TARGET" in
    x86_64-pc-windows-gnu)
        wine_env_dir=$wine_env_root/target/wine
        ;;
    i686-pc-windows-gnu)
        wine_env_dir=$wine_env_root/target/wine32
        # shellcheck source=../../scripts/lib/foreign-debs.sh
        . "$wine_env_root/scripts/lib/foreign-debs.sh"
        wine_env_i386=$(foreign_root i386)
        [ -x "$wine_env_i386/usr/lib/wine/wine" ] && [ -x "$wine_env_i386/usr/lib/wine/wineserver32" ] || {
            echo "wine-env.sh: no 32-bit wine in $wine_env_i386 (run scripts/setup-targets.sh)" >&2
            return 1 2>/dev/null || exit 1
        }
        [ -f "$wine_env_mingw_lib/zlib1.dll" ] || {
            echo "wine-env.sh: missing $wine_env_mingw_lib/zlib1.dll (apt-get install libz-mingw-w64)" >&2
            return 1 2>/dev/null || exit 1
        }
        # `wine` and `wineserver` on PATH are the private root's, so the
        # scripts call them by name whichever the target; the loader starts
        # WINESERVER and re-executes WINELOADER. wine's Unix side finds the
        # root's 32-bit FreeType (and its libraries) through the wrapper's
        # LD_LIBRARY_PATH, which the processes it starts inherit.
        export WINELOADER=$wine_env_i386/usr/lib/wine/wine
        export WINESERVER=$wine_env_i386/usr/lib/wine/wineserver32
        export WINEARCH=win32
        mkdir -p "$wine_env_dir/bin"
        # wine_env_script NAME TEXT: bin/NAME holds TEXT (rewritten only
        # when it differs, so concurrent sourcing never sees half a file).
        wine_env_script() {
            local file=$wine_env_dir/bin/$1
            [ "$(cat "$file" 2>/dev/null)" = "$2" ] && return 0
            printf '%s\n' "$2" >"$file.tmp"
            chmod +x "$file.tmp"
            mv "$file.tmp" "$file"
        }
        wine_env_libs=$wine_env_i386/usr/lib/i386-linux-gnu:$wine_env_i386/lib/i386-linux-gnu
        wine_env_script wine "#!/bin/sh
LD_LIBRARY_PATH=$wine_env_libs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH} exec \"\$WINELOADER\" \"\$@\""
        wine_env_script wineserver "#!/bin/sh
exec \"\$WINESERVER\" \"\$@\""
        case ":$PATH:" in
            *":$wine_env_dir/bin:"*) ;;
            *) export PATH=$wine_env_dir/bin:$PATH ;;
        esac
        ;;
esac
export WINEPREFIX=${WINEPREFIX:-$wine_env_dir/prefix}
export WINEDEBUG=${WINEDEBUG:--all}
export WINEDLLOVERRIDES=${WINEDLLOVERRIDES:-mscoree=;mshtml=;winemenubuilder.exe=}
wine_shim_dir=$wine_env_dir/shim
if [ ! -e "$wine_shim_dir/bcryptprimitives.dll" ] ||
   [ "$wine_env_here/bcryptprimitives.c" -nt "$wine_shim_dir/bcryptprimitives.dll" ] ||
   [ "$wine_env_here/bcryptprimitives.def" -nt "$wine_shim_dir/bcryptprimitives.dll" ]; then
    CC=$WT_MINGW-gcc "$wine_env_here/build-prng-shim.sh" "$wine_shim_dir" >/dev/null
fi
# Wine searches its PATH for DLLs; WINEPATH adds to it (Unix paths map to
# Z:, entries separated by ';'). 32-bit wine's own DLLs import zlib1.dll,
# which a new 32-bit prefix does not have (every process failed with
# c0000135): mingw-w64's is added.
if [ "$ENET_WIN_TARGET" = i686-pc-windows-gnu ]; then
    export WINEPATH="$wine_shim_dir;$wine_env_mingw_lib"
else
    export WINEPATH=$wine_shim_dir
fi
mkdir -p "$(dirname "$WINEPREFIX")"
# A new 32-bit prefix is made without the root's FreeType (the loader run
# directly, not through the wrapper): made with it, wine's explorer failed
# to create the desktop window ("Cannot get server thread queue") and was
# restarted without end, hundreds of processes, in every later run of that
# prefix too. A prefix made without it works with it afterwards.
wine_env_new_prefix() {
    if [ "$ENET_WIN_TARGET" = i686-pc-windows-gnu ] && [ ! -f "$WINEPREFIX/system.reg" ]; then
        mkdir -p "$WINEPREFIX"
        "$WINELOADER" cmd /c exit 0 >/dev/null 2>&1 || true
        "$WINESERVER" -w
    fi
}
wine_env_new_prefix

# wine_stop: stops the prefix's wineserver, and then every process still
# running in the prefix, by its PID: those whose environment names this
# prefix. A wine process can outlive its server: once in CI the services a
# new prefix starts (services.exe, winedevice.exe, plugplay.exe,
# svchost.exe) stayed, waiting on a pipe, after the server of the prefix's
# first start had gone, and `wineserver -k` stops only the server running
# now and its own processes. This shell, which has the prefix in its
# environment too, is left alone.
wine_stop() {
    wineserver -k 2>/dev/null || true
    local entry pid
    for entry in /proc/[0-9]*; do
        pid=${entry#/proc/}
        [ "$pid" = "$$" ] || [ "$pid" = "${BASHPID:-$$}" ] && continue
        if tr '\0' '\n' 2>/dev/null <"$entry/environ" | grep -qxF "WINEPREFIX=$WINEPREFIX"; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
}

# wine_start_server: makes sure the prefix works and leaves one wineserver
# running in it (`wineserver -p`), so no test program races a server that is
# shutting down. wine's first start makes the prefix; once in CI that start
# failed outright (exit 53, wine's code for a process that could not load
# kernel32.dll), which no run here reproduced. A failed start is shown with
# wine's own messages and tried again, up to three times in all; a prefix
# of the project's own (under target/) is removed first, as half made.
wine_start_server() {
    local attempt rc log=${WINEPREFIX%/}.start.log
    for attempt in 1 2 3; do
        wine_env_new_prefix
        rc=0
        wine cmd /c exit 0 >"$log" 2>&1 || rc=$?
        if [ $rc -eq 0 ]; then
            wineserver -w
            # The server is gone: whatever still runs in the prefix lost it.
            wine_stop
            wineserver -p
            return 0
        fi
        echo "wine-env.sh: wine's start in $WINEPREFIX failed (exit $rc, attempt $attempt of 3); wine said:" >&2
        tail -n 20 "$log" >&2
        # Stop first: a start that failed may have left processes behind.
        wine_stop
        [ "$attempt" -lt 3 ] || break
        case "$WINEPREFIX" in
            "$wine_env_root"/target/*) rm -rf "$WINEPREFIX" ;;
        esac
    done
    return "$rc"
}
