//! Path MTU discovery (see `docs/extensions.md`): each connected peer's
//! datagrams, and the fragments of what is sent to it from then on, sized
//! to what the path carries, found with probes.

use crate::{Error, Host, Peer};

impl Host {
    /// Turns path MTU discovery on or off (off by default, as stock ENet
    /// has it). On, the host's socket sets don't-fragment, and each
    /// connected peer's datagrams start at 1200 bytes (or its MTU, if
    /// smaller) and grow only once a probe of a larger size is
    /// acknowledged; they shrink when large datagrams vanish.
    pub fn set_path_mtu_discovery(&mut self, on: bool) {
        self.endpoint.set_path_mtu_discovery(on);
    }

    /// The largest datagram the host now builds for `peer` (ENet bytes,
    /// as its MTU counts them): its path size while the host discovers
    /// path MTUs, its MTU otherwise.
    pub fn path_mtu(&self, peer: Peer) -> Result<u32, Error> {
        let index = self.index(peer)?;
        Ok(self.endpoint.peer_path_mtu(index))
    }
}
