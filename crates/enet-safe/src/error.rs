//! What can go wrong, as one error type with a case per cause.

use std::fmt;
use std::io;

/// Why a call failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The socket could not be opened, bound or read (the port is taken,
    /// the address is not this machine's, ...).
    Socket(io::Error),
    /// More peers than ENet allows (4095) were asked for.
    TooManyPeers(usize),
    /// Every peer slot is in use.
    NoFreeSlot,
    /// The host's socket cannot reach that address family (an IPv4 host and
    /// an IPv6 address, or an IPv6-only host and an IPv4 one).
    AddressFamily,
    /// The peer has disconnected (its handle is stale).
    PeerGone,
    /// The peer belongs to another host.
    ForeignPeer,
    /// The peer is still connecting or already disconnecting.
    NotConnected,
    /// The channel is not one of the peer's.
    BadChannel { channel: u8, channels: usize },
    /// The packet is too large for ENet's fragment limits.
    TooLarge(usize),
    /// Sending or receiving failed inside `service` or `flush`.
    Service,
    /// The host a [`Sender`](crate::Sender) queues for was dropped.
    HostGone,
    /// The system refused what a [`Sender`](crate::Sender) needs (a
    /// waker for the host's thread: an eventfd, a pipe or a loopback
    /// socket).
    NoSender,
    /// An encryption set-up was refused: unreadable PEM, a key that is not
    /// ECDSA P-256/P-384, a host name that is neither a DNS name nor an IP
    /// address.
    Encryption(String),
    /// The host already has peers; it can only be made to encrypt before
    /// any connect.
    HasPeers,
    /// A network conditioner spec was refused: the key and why.
    Netsim(String),
    /// The peer's send backlog is at or over the send limit set with
    /// [`Host::set_send_limit`](crate::Host::set_send_limit); the packet
    /// was not queued (and is dropped with the call).
    OverSendLimit { backlog: usize, limit: usize },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Socket(error) => write!(f, "socket: {error}"),
            Error::TooManyPeers(count) => write!(f, "{count} peers asked for; ENet allows 4095"),
            Error::NoFreeSlot => f.write_str("every peer slot is in use"),
            Error::AddressFamily => {
                f.write_str("the host's socket cannot reach that address family")
            }
            Error::Netsim(problem) => write!(f, "network conditioner: {problem}"),
            Error::PeerGone => f.write_str("the peer has disconnected"),
            Error::ForeignPeer => f.write_str("the peer belongs to another host"),
            Error::NotConnected => f.write_str("the peer is not connected"),
            Error::BadChannel { channel, channels } => {
                write!(f, "channel {channel} is not one of the peer's {channels}")
            }
            Error::TooLarge(length) => write!(f, "a {length}-byte packet is too large for ENet"),
            Error::Service => f.write_str("the host's socket failed while servicing"),
            Error::HostGone => f.write_str("the host was dropped"),
            Error::NoSender => {
                f.write_str("the system refused a waker (eventfd, pipe or socket) for the sender")
            }
            Error::Encryption(why) => write!(f, "encryption set-up refused: {why}"),
            Error::HasPeers => f.write_str("the host already has peers"),
            Error::OverSendLimit { backlog, limit } => write!(
                f,
                "the peer's send backlog of {backlog} bytes is at or over its limit of {limit}"
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Socket(error) => Some(error),
            _ => None,
        }
    }
}

impl From<io::Error> for Error {
    fn from(error: io::Error) -> Self {
        Error::Socket(error)
    }
}
