//! The encrypted server's gate, seen from the network: a ClientHello
//! without a cookie gets a HelloVerifyRequest and leaves no session
//! behind, however many sources send one; a cookie is good only from the
//! address it was sent to.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dimpl::{Config, Dtls, DtlsCertificate, Output};

use super::certs::Identity;

/// A bare DTLS client: its ClientHellos, and its answer to a cookie.
pub struct BareClient {
    dtls: Dtls,
}

impl BareClient {
    pub fn new(own: &Identity) -> BareClient {
        let config = Arc::new(
            Config::builder()
                .with_crypto_provider(dimpl::crypto::rust_crypto::default_provider())
                .build()
                .unwrap(),
        );
        let certificate = DtlsCertificate {
            certificate: own.certificate_der.clone(),
            private_key: own.key_der.clone(),
        };
        let mut dtls = Dtls::new_12(config, certificate, Instant::now());
        dtls.set_active(true);
        dtls.handle_timeout(Instant::now()).unwrap();
        BareClient { dtls }
    }

    /// The datagrams the client has to send now.
    pub fn flight(&mut self) -> Vec<Vec<u8>> {
        let mut buffer = vec![0u8; 4096];
        let mut out = Vec::new();
        loop {
            match self.dtls.poll_output(&mut buffer) {
                Output::Packet(datagram) => out.push(datagram.to_vec()),
                Output::Timeout(_) => return out,
                _ => {}
            }
        }
    }

    /// Takes the server's HelloVerifyRequest; the ClientHello with cookie.
    pub fn answer(&mut self, hello_verify_request: &[u8]) -> Vec<u8> {
        self.dtls.handle_packet(hello_verify_request).unwrap();
        self.flight().remove(0)
    }
}

/// A socket on 127.0.0.1 that gives up reading after `wait`.
pub fn socket(wait: Duration) -> UdpSocket {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.set_read_timeout(Some(wait)).unwrap();
    socket
}

/// What `socket` receives next (within its read timeout).
pub fn next(socket: &UdpSocket) -> Option<Vec<u8>> {
    let mut buffer = [0u8; 4096];
    socket
        .recv(&mut buffer)
        .ok()
        .map(|length| buffer[..length].to_vec())
}

/// Whether a datagram is a HelloVerifyRequest.
pub fn is_hello_verify_request(datagram: &[u8]) -> bool {
    datagram.len() > 13 && datagram[0] == 22 && datagram[13] == 3
}

pub fn to(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}
