# Shared by the set-up scripts (source it): installs Debian packages that
# are not installed yet, with one `apt-get update` before, and only when
# something is missing, so a re-run on a set-up machine touches nothing.
#
#   apt_install [--update] [--no-recommends] PACKAGE...
#       --update         refresh the package lists even when nothing is
#                        missing (a foreign architecture was just added)
#       --no-recommends  leave out recommended packages
# Runs apt-get through sudo unless already root.

apt_install() {
    local update=0 options=() missing=() package sudo=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --update) update=1 ;;
            --no-recommends) options+=(--no-install-recommends) ;;
            *) break ;;
        esac
        shift
    done
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
            || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ] || [ $update -eq 1 ]; then
        echo "== installing: ${missing[*]}"
        $sudo apt-get update -qq
        [ ${#missing[@]} -eq 0 ] \
            || DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${options[@]}" "${missing[@]}" >/dev/null
    fi
    echo "== Debian packages present: $*"
}
