#!/bin/sh
# run_matrix.sh --ours-launcher for the enet-rs side: INTEROP_DTLS=1 makes
# peer.c turn on enet-rs's encryption (certificate in $DTLS_DIR), and the
# stock side, started without this launcher, stays plaintext behind its
# relay. run_dtls.sh passes it with --native-dtls ours.
INTEROP_DTLS=1 exec "$@"
