//! Sending from other threads: a [`Sender`] queues sends, broadcasts and
//! disconnects for a host while the thread that owns the host runs
//! [`Host::service`](crate::Host::service), which applies them in order
//! and is woken from its wait when the first of a burst arrives.

use std::sync::Arc;

use enet::net::request_queue::RequestQueue;
use enet::proto::Request;

use crate::error::Error;
use crate::packet::Packet;
use crate::peer::Peer;

/// A handle any thread may use to hand work to one host: clone it, move it
/// to a thread, keep it as long as you like. Each call only queues; the
/// host's own thread does the work at its next [`Host::service`] or
/// [`Host::flush`](crate::Host::flush), in the order the calls were made.
///
/// A [`Packet`] stays on the thread that made it, so make the packet on
/// the sending thread.
///
/// [`Host::service`]: crate::Host::service
///
/// ```
/// use std::time::Duration;
/// use enet_safe::{Event, Host, HostConfig, Packet};
///
/// # fn main() -> Result<(), enet_safe::Error> {
/// let mut server = Host::bind("127.0.0.1:0".parse().unwrap(), HostConfig::default())?;
/// let mut client = Host::client(HostConfig::default())?;
/// client.connect(server.local_addr()?, 1, 0)?;
/// let sender = server.sender()?;
///
/// let mut worker = None;
/// let mut heard = None;
/// for _ in 0..5000 {
///     if let Some(Event::Connect { peer, .. }) = server.service(Duration::from_millis(1))? {
///         // Another thread answers the new peer.
///         let sender = sender.clone();
///         worker = Some(std::thread::spawn(move || {
///             sender.send(peer, 0, Packet::reliable(b"from a worker"))
///         }));
///     }
///     if let Some(Event::Receive { packet, .. }) = client.service(Duration::ZERO)? {
///         heard = Some(packet.data().to_vec());
///         break;
///     }
/// }
/// worker.expect("the server saw the client").join().unwrap()?;
/// assert_eq!(heard.as_deref(), Some(&b"from a worker"[..]));
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Sender {
    queue: Arc<RequestQueue>,
    /// The id of the host it queues for.
    host: u32,
}

impl Sender {
    pub(crate) fn new(queue: Arc<RequestQueue>, host: u32) -> Sender {
        Sender { queue, host }
    }

    /// Queues `packet` for `peer` on `channel`. Fails with
    /// [`Error::PeerGone`] if the peer has already left,
    /// [`Error::ForeignPeer`] if it is another host's, and
    /// [`Error::HostGone`] if the host was dropped. A send that cannot be
    /// made when the host comes to it (the peer left meanwhile, a channel
    /// out of range) is dropped there.
    pub fn send(&self, peer: Peer, channel: u8, packet: Packet) -> Result<(), Error> {
        let handle = self.current(peer)?;
        self.push(Request::Send {
            peer: handle,
            channel_id: channel,
            packet: packet.into_engine(),
        })
    }

    /// Queues `packet` for every peer connected when the host comes to it.
    pub fn broadcast(&self, channel: u8, packet: Packet) -> Result<(), Error> {
        self.push(Request::Broadcast {
            channel_id: channel,
            packet: packet.into_engine(),
        })
    }

    /// Queues a graceful disconnect of `peer` (see
    /// [`Host::disconnect`](crate::Host::disconnect)).
    pub fn disconnect(&self, peer: Peer, data: u32) -> Result<(), Error> {
        let handle = self.current(peer)?;
        self.push(Request::Disconnect { peer: handle, data })
    }

    /// `peer`'s handle if it is this host's and still names its
    /// connection; otherwise why not. A current handle takes no lock here:
    /// queueing finds a dropped host. A stale one may be stale because the
    /// host was dropped (that resets its peers), which is the better answer.
    fn current(&self, peer: Peer) -> Result<enet::proto::PeerHandle, Error> {
        let handle = peer.handle;
        if peer.host != self.host {
            Err(Error::ForeignPeer)
        } else if self.queue.is_current(handle) {
            Ok(handle)
        } else if self.queue.is_closed() {
            Err(Error::HostGone)
        } else {
            Err(Error::PeerGone)
        }
    }

    fn push(&self, request: Request) -> Result<(), Error> {
        // A refused request is dropped here, its packet with it. Packets
        // of this API have one reference, so only a dropped host refuses.
        self.queue.queue(request).map_err(|_| Error::HostGone)
    }
}

impl std::fmt::Debug for Sender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}
