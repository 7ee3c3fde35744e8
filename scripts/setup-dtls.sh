#!/usr/bin/env bash
# Installs the other ends of the DTLS interop tests (tests-c/dtls/) from
# Debian's packages: godot3-server (Godot 3.2.3 run headless; its DTLSServer,
# PacketPeerDTLS, UDPServer and PacketPeerUDP, mbedtls inside, are the
# classes Godot's own ENet runs over DTLS with), socat (OpenSSL's DTLS, as
# OPENSSL-DTLS-CLIENT/-SERVER addresses) and openssl (the test certificate,
# made at test time). scripts/setup-debian.sh calls it.
set -euo pipefail
packages=(godot3-server socat openssl)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "== Debian packages present: ${packages[*]}"
