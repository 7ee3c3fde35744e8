//! `enet/types.h`: the fixed-width integer names ENet's headers use.

/// Unsigned 8-bit integer.
pub type enet_uint8 = u8;
/// Unsigned 16-bit integer.
pub type enet_uint16 = u16;
/// Unsigned 32-bit integer.
pub type enet_uint32 = u32;
