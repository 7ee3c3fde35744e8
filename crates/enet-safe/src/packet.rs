//! Packets and how they are delivered.

use enet::mem::{PacketFlags, PacketRef};

/// How a packet travels on its channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Delivery {
    /// Resent until acknowledged; delivered once, in order.
    Reliable,
    /// Sent once; may be lost, but never delivered out of order or twice
    /// (a late one is dropped). A large one goes as reliable fragments, as
    /// ENet does.
    Unreliable,
    /// Sent once, delivered in whatever order it arrives (never twice).
    Unsequenced,
    /// Like [`Delivery::Unreliable`], with a large one sent as unreliable
    /// fragments (lost whole if one is lost).
    UnreliableFragments,
}

impl Delivery {
    /// The packet flags that ask for this delivery.
    fn flags(self) -> PacketFlags {
        match self {
            Delivery::Reliable => PacketFlags::RELIABLE,
            Delivery::Unreliable => PacketFlags::NONE,
            Delivery::Unsequenced => PacketFlags::UNSEQUENCED,
            Delivery::UnreliableFragments => PacketFlags::UNRELIABLE_FRAGMENT,
        }
    }

    /// The delivery that packet flags ask for (reliable wins over the
    /// others, as in the engine).
    fn of(flags: PacketFlags) -> Delivery {
        if flags.contains(PacketFlags::RELIABLE) {
            Delivery::Reliable
        } else if flags.contains(PacketFlags::UNSEQUENCED) {
            Delivery::Unsequenced
        } else if flags.contains(PacketFlags::UNRELIABLE_FRAGMENT) {
            Delivery::UnreliableFragments
        } else {
            Delivery::Unreliable
        }
    }
}

/// A packet: bytes and how they travel. Received packets say how they
/// were sent.
#[derive(Debug)]
pub struct Packet {
    inner: PacketRef,
}

impl Packet {
    /// A packet of a copy of `data`, delivered as `delivery` says.
    pub fn new(data: &[u8], delivery: Delivery) -> Packet {
        let inner = PacketRef::new_with_data(data, delivery.flags())
            .expect("the allocator refused a packet");
        Packet { inner }
    }

    /// A reliable packet (see [`Delivery::Reliable`]).
    pub fn reliable(data: &[u8]) -> Packet {
        Packet::new(data, Delivery::Reliable)
    }

    /// An unreliable, sequenced packet (see [`Delivery::Unreliable`]).
    pub fn unreliable(data: &[u8]) -> Packet {
        Packet::new(data, Delivery::Unreliable)
    }

    /// An unsequenced packet (see [`Delivery::Unsequenced`]).
    pub fn unsequenced(data: &[u8]) -> Packet {
        Packet::new(data, Delivery::Unsequenced)
    }

    pub fn data(&self) -> &[u8] {
        self.inner.data()
    }

    pub fn len(&self) -> usize {
        self.inner.len()
    }

    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// How the packet travels (or travelled, for a received one).
    pub fn delivery(&self) -> Delivery {
        Delivery::of(self.inner.flags())
    }

    pub(crate) fn from_engine(inner: PacketRef) -> Packet {
        Packet { inner }
    }

    pub(crate) fn engine(&self) -> &PacketRef {
        &self.inner
    }

    /// The engine's reference, handed over (to a request).
    pub(crate) fn into_engine(self) -> PacketRef {
        self.inner
    }
}
