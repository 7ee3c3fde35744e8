//! Back-pressure: a peer's send limit, past which [`Host::send`] refuses
//! with [`Error::OverSendLimit`] and [`Host::broadcast`] skips the peer.

use super::Host;
use crate::error::Error;
use crate::peer::Peer;

impl Host {
    /// Gives `peer` a send limit of `bytes` (0, the default, takes it
    /// away): while its [send backlog](Host::send_backlog) is at or over
    /// the limit, [`Host::send`] to it fails with
    /// [`Error::OverSendLimit`] and [`Host::broadcast`] passes it by. The
    /// limit is checked before a packet is queued, so the packet that
    /// crosses it is taken (a backlog reaches at most the limit plus one
    /// packet). It lasts as long as the connection.
    pub fn set_send_limit(&mut self, peer: Peer, bytes: usize) -> Result<(), Error> {
        let index = self.index(peer)?;
        self.endpoint
            .set_send_limit(index, bytes)
            .map_err(|_| Error::PeerGone)
    }

    /// The send limit of `peer` in bytes; 0 for none.
    pub fn send_limit(&self, peer: Peer) -> Result<usize, Error> {
        Ok(self.endpoint.send_limit(self.index(peer)?))
    }

    /// What the send limit of `peer` is compared with: the payload bytes
    /// queued for it and not yet sent, plus the reliable payload bytes sent
    /// and not yet acknowledged. An unreliable packet leaves it when it is
    /// sent, a reliable one when it is acknowledged.
    pub fn send_backlog(&self, peer: Peer) -> Result<usize, Error> {
        Ok(self.endpoint.send_backlog(self.index(peer)?))
    }
}
