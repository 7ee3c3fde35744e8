//! [`PacketFlags`]: how a packet travels, as a typed set of the
//! `ENetPacketFlag` bits.
//!
//! A packet's `flags` field is a C `u32` (programs read and write it), so
//! the C ABI and the packet's memory keep the bare integer; Rust code, the
//! engine's tests included, names the bits through this type and converts
//! at that boundary with [`PacketFlags::bits`] and
//! [`PacketFlags::from_bits_retain`].

use core::fmt;
use core::ops::{BitAnd, BitOr, BitOrAssign};

use crate::abi::ENetPacketFlag;

/// A set of `ENetPacketFlag` bits. Bits the header does not name are kept
/// as they are, so a program's flags survive the round trip unchanged.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct PacketFlags(u32);

impl PacketFlags {
    /// No flag: unreliable, sequenced, its data copied into the packet.
    pub const NONE: PacketFlags = PacketFlags(0);
    /// Resent until acknowledged, delivered in order.
    pub const RELIABLE: PacketFlags = Self::of(ENetPacketFlag::ENET_PACKET_FLAG_RELIABLE);
    /// Delivered in whatever order it arrives (unreliable packets only).
    pub const UNSEQUENCED: PacketFlags = Self::of(ENetPacketFlag::ENET_PACKET_FLAG_UNSEQUENCED);
    /// The packet borrows the program's data instead of copying it.
    pub const NO_ALLOCATE: PacketFlags = Self::of(ENetPacketFlag::ENET_PACKET_FLAG_NO_ALLOCATE);
    /// An unreliable packet too large for one datagram is sent as
    /// unreliable fragments (not reliable ones).
    pub const UNRELIABLE_FRAGMENT: PacketFlags =
        Self::of(ENetPacketFlag::ENET_PACKET_FLAG_UNRELIABLE_FRAGMENT);
    /// Set by the library once every queue that held the packet is done
    /// with it.
    pub const SENT: PacketFlags = Self::of(ENetPacketFlag::ENET_PACKET_FLAG_SENT);

    #[inline]
    const fn of(flag: ENetPacketFlag) -> PacketFlags {
        PacketFlags(flag as u32)
    }

    /// The flags as the `u32` of a packet's `flags` field.
    #[inline]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The flags of a `u32` as C code stores it, every bit kept.
    #[inline]
    pub const fn from_bits_retain(bits: u32) -> PacketFlags {
        PacketFlags(bits)
    }

    /// Whether every flag of `other` is set here.
    #[inline]
    pub const fn contains(self, other: PacketFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether any flag of `other` is set here.
    #[inline]
    pub const fn intersects(self, other: PacketFlags) -> bool {
        self.0 & other.0 != 0
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The flags set in either.
    #[inline]
    pub const fn union(self, other: PacketFlags) -> PacketFlags {
        PacketFlags(self.0 | other.0)
    }
}

impl BitOr for PacketFlags {
    type Output = PacketFlags;
    #[inline]
    fn bitor(self, other: PacketFlags) -> PacketFlags {
        self.union(other)
    }
}

impl BitOrAssign for PacketFlags {
    #[inline]
    fn bitor_assign(&mut self, other: PacketFlags) {
        *self = self.union(other);
    }
}

impl BitAnd for PacketFlags {
    type Output = PacketFlags;
    #[inline]
    fn bitand(self, other: PacketFlags) -> PacketFlags {
        PacketFlags(self.0 & other.0)
    }
}

impl fmt::Debug for PacketFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMED: [(PacketFlags, &str); 5] = [
            (PacketFlags::RELIABLE, "RELIABLE"),
            (PacketFlags::UNSEQUENCED, "UNSEQUENCED"),
            (PacketFlags::NO_ALLOCATE, "NO_ALLOCATE"),
            (PacketFlags::UNRELIABLE_FRAGMENT, "UNRELIABLE_FRAGMENT"),
            (PacketFlags::SENT, "SENT"),
        ];
        write!(f, "PacketFlags({:#x}", self.0)?;
        for (flag, name) in NAMED {
            if self.contains(flag) {
                write!(f, " {name}")?;
            }
        }
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values of `enet.h`'s `ENetPacketFlag`, written out.
    #[test]
    fn flags_have_the_headers_values() {
        assert_eq!(PacketFlags::NONE.bits(), 0);
        assert_eq!(PacketFlags::RELIABLE.bits(), 1);
        assert_eq!(PacketFlags::UNSEQUENCED.bits(), 2);
        assert_eq!(PacketFlags::NO_ALLOCATE.bits(), 4);
        assert_eq!(PacketFlags::UNRELIABLE_FRAGMENT.bits(), 8);
        assert_eq!(PacketFlags::SENT.bits(), 256);
    }

    #[test]
    fn set_operations() {
        let flags = PacketFlags::RELIABLE | PacketFlags::NO_ALLOCATE;
        assert_eq!(flags.bits(), 5);
        assert!(flags.contains(PacketFlags::RELIABLE));
        assert!(flags.contains(PacketFlags::RELIABLE | PacketFlags::NO_ALLOCATE));
        assert!(!flags.contains(PacketFlags::RELIABLE | PacketFlags::SENT));
        assert!(flags.intersects(PacketFlags::RELIABLE | PacketFlags::SENT));
        assert!(!flags.intersects(PacketFlags::UNSEQUENCED));
        assert!(flags.contains(PacketFlags::NONE));
        assert!(PacketFlags::NONE.is_empty());
        assert_eq!(flags & PacketFlags::NO_ALLOCATE, PacketFlags::NO_ALLOCATE);
        let mut grown = PacketFlags::UNSEQUENCED;
        grown |= PacketFlags::SENT;
        assert_eq!(grown.bits(), 0x102);
    }

    #[test]
    fn unnamed_bits_are_kept() {
        let flags = PacketFlags::from_bits_retain(0xF1F1);
        assert_eq!(flags.bits(), 0xF1F1);
        assert!(flags.contains(PacketFlags::RELIABLE));
        assert_eq!(format!("{flags:?}"), "PacketFlags(0xf1f1 RELIABLE SENT)");
    }
}
