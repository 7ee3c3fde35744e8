# Debian packages of another architecture, unpacked into a private root,
# without adding the architecture to dpkg (source this file).
#
#   foreign_root ARCH          prints the root ARCH's packages go to
#   foreign_debs ARCH PACKAGE...
#       downloads each PACKAGE built for ARCH from Debian's main suite of
#       this release and unpacks it under "$(foreign_root ARCH)", unless a
#       earlier call already did.
#
# Why not `dpkg --add-architecture`: a foreign architecture's packages must
# match amd64's installed versions in every suite, and apt-get update then
# fails (exit 100) whenever one suite's lists for it do not download, as
# bookworm-security's for i386 and armhf did for days ("File has unexpected
# size ... Mirror sync in progress?"), and that suite has no s390x at all.
# What the tests need of another architecture is a handful of files (stock
# ENet's libenet.so.7 as the layout and wire oracle, 32-bit wine), so a
# private apt state with the main suite's lists for ARCH alone downloads
# them, and dpkg-deb unpacks them; the system's apt and dpkg never see ARCH.
#
# ENET_RS_FOREIGN_DIR (default /var/cache/enet-rs/foreign) holds the roots
# and the private apt state.

foreign_dir() { echo "${ENET_RS_FOREIGN_DIR:-/var/cache/enet-rs/foreign}"; }
foreign_root() { echo "$(foreign_dir)/$1/root"; }

foreign_debs() {
    local arch=$1 state root codename package deb wanted=()
    shift
    state="$(foreign_dir)/$arch/apt"
    root=$(foreign_root "$arch")
    for package in "$@"; do
        [ -e "$root/.unpacked/$package" ] || wanted+=("$package")
    done
    if [ ${#wanted[@]} -eq 0 ]; then
        echo "== $arch packages present in $root: $*"
        return 0
    fi
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    mkdir -p "$state/lists/partial" "$state/archives/partial" "$state/cache" "$root/.unpacked"
    cat >"$state/sources.list" <<EOF
deb [arch=$arch signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $codename main
EOF
    local apt=(apt-get -qq
        -o "APT::Architecture=$arch" -o "APT::Architectures::=$arch"
        -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache"
        -o "Dir::Etc::SourceList=$state/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
        -o "Dir::State::status=/dev/null" -o "Debug::NoLocking=1"
        -o "APT::Sandbox::User=root")
    echo "== downloading Debian's $arch packages: ${wanted[*]}"
    "${apt[@]}" update
    (cd "$state/archives" && "${apt[@]}" download "${wanted[@]/%/:$arch}")
    for package in "${wanted[@]}"; do
        deb=$(ls -t "$state/archives/${package}_"*"_$arch.deb" 2>/dev/null | head -n 1)
        [ -n "$deb" ] || { echo "foreign_debs: no $package for $arch downloaded" >&2; return 1; }
        dpkg-deb -x "$deb" "$root"
        basename "$deb" >"$root/.unpacked/$package"
    done
    echo "== $arch packages unpacked in $root: $*"
}
