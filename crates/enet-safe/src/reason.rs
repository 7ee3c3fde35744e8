//! Why a peer left ([`Host::disconnect_reason`]): the reason the engine
//! recorded when the connection ended, as a Rust enum.

use enet::proto::PeerEnd;

use crate::error::Error;
use crate::host::{Encryption, Host};
use crate::peer::Peer;

/// Why a connection ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DisconnectReason {
    /// The remote end disconnected, passing `data`.
    Remote { data: u32 },
    /// The remote end stopped answering (also while our own disconnect
    /// waited for its acknowledgement).
    Timeout,
    /// Our own disconnect finished: the remote end acknowledged it, or
    /// [`Host::disconnect_now`] (or a disconnect of a peer not yet
    /// connected) dropped the peer at once.
    Local,
    /// The peer was reset by this end without a word.
    LocalReset,
    /// Our connect was refused: the server's answer did not match it
    /// (`data` 0), or it disconnected, passing `data`, before the
    /// connection was reported.
    ConnectRefused { data: u32 },
    /// Nothing answered our connect.
    ConnectUnanswered,
    /// The encrypted session failed or closed, and why (as
    /// [`Encryption::Failed`] says it).
    Encryption(String),
    /// A reliable packet's fragments were dropped to keep the host within
    /// its reassembly budget, so the connection could not go on.
    ReassemblyBudget,
    /// A half-open peer whose slot a newer connect took (a host never
    /// reports one of these to the program, which never saw the peer).
    HalfOpenEvicted,
}

impl DisconnectReason {
    /// Whether the connection (or our connect) timed out.
    pub fn is_timeout(&self) -> bool {
        matches!(
            self,
            DisconnectReason::Timeout | DisconnectReason::ConnectUnanswered
        )
    }
}

impl Host {
    /// Why `peer`'s connection ended: readable from its
    /// [`Event::Disconnect`](crate::Event::Disconnect) (or the
    /// [`Host::disconnect_now`] that ended it) until its slot is taken
    /// again, when its handle is refused with [`Error::PeerGone`].
    /// `None` while the connection goes on.
    pub fn disconnect_reason(&self, peer: Peer) -> Result<Option<DisconnectReason>, Error> {
        let Some(end) = self.peer_end(peer)? else {
            return Ok(None);
        };
        Ok(Some(match end {
            PeerEnd::RemoteDisconnect { data } => DisconnectReason::Remote { data },
            PeerEnd::Timeout => DisconnectReason::Timeout,
            PeerEnd::LocalDisconnect => DisconnectReason::Local,
            PeerEnd::LocalReset => DisconnectReason::LocalReset,
            PeerEnd::ConnectRefused { data } => DisconnectReason::ConnectRefused { data },
            PeerEnd::ConnectUnanswered => DisconnectReason::ConnectUnanswered,
            PeerEnd::EncryptionFailed => {
                DisconnectReason::Encryption(match self.encryption(peer)? {
                    Encryption::Failed(why) => why,
                    _ => String::from("the encrypted session ended"),
                })
            }
            PeerEnd::ReassemblyBudget => DisconnectReason::ReassemblyBudget,
            PeerEnd::HalfOpenEvicted => DisconnectReason::HalfOpenEvicted,
        }))
    }
}
