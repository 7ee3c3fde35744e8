//! Path MTU discovery on a whole host: the engine's path sizes and the
//! socket's don't-fragment together (see `proto/host/path_mtu.rs`).

use super::Endpoint;

impl Endpoint {
    /// Turns path MTU discovery on or off: the engine's per-peer path
    /// sizes, and don't-fragment on the host's socket (the system's default
    /// back when off). A system without the socket option still has the
    /// probes.
    pub fn set_path_mtu_discovery(&mut self, on: bool) {
        self.host.set_path_mtu_discovery(on);
        let socket = self.host.public.socket;
        let _ = self.io.set_dont_fragment(socket, on);
    }
}
