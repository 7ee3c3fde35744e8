# Sourced by the Windows test scripts: runs wine in the project's own
# prefix (never the user's ~/.wine), quietly, without the Mono and Gecko
# installers a new prefix would ask for, and with the test-only
# bcryptprimitives.dll stand-in (see bcryptprimitives.c) on wine's PATH.
# The prefix is ours alone, so `wineserver -k` stops only what our tests
# started.
# usage: . tests-c/windows/wine-env.sh   (from bash; sets the WINE* variables)
wine_env_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
wine_env_root=$(cd "$wine_env_here/../.." && pwd)
export WINEPREFIX=${WINEPREFIX:-$wine_env_root/target/wine/prefix}
export WINEDEBUG=${WINEDEBUG:--all}
export WINEDLLOVERRIDES=${WINEDLLOVERRIDES:-mscoree=;mshtml=;winemenubuilder.exe=}
wine_shim_dir=$wine_env_root/target/wine/shim
if [ ! -e "$wine_shim_dir/bcryptprimitives.dll" ] ||
   [ "$wine_env_here/bcryptprimitives.c" -nt "$wine_shim_dir/bcryptprimitives.dll" ]; then
    "$wine_env_here/build-prng-shim.sh" "$wine_shim_dir" >/dev/null
fi
# Wine searches its PATH for DLLs; WINEPATH adds to it (Unix paths map to Z:).
export WINEPATH=$wine_shim_dir
mkdir -p "$(dirname "$WINEPREFIX")"
