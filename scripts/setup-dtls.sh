#!/usr/bin/env bash
# Installs the other ends of the DTLS interop tests (tests-c/dtls/) from
# Debian's packages: godot3-server (Godot 3.2.3 run headless; its DTLSServer,
# PacketPeerDTLS, UDPServer and PacketPeerUDP, mbedtls inside, are the
# classes Godot's own ENet runs over DTLS with), socat (OpenSSL's DTLS, as
# OPENSSL-DTLS-CLIENT/-SERVER addresses) and openssl (the test certificate,
# made at test time). scripts/setup-debian.sh calls it.
set -euo pipefail
. "$(dirname "$0")/lib/apt.sh"
apt_install --no-recommends godot3-server socat openssl
