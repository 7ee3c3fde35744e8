//! The `ENetPacketFlag` bits the engine tests, as the `u32` a packet's
//! `flags` field holds.

use crate::abi::ENetPacketFlag;

pub(crate) const RELIABLE: u32 = ENetPacketFlag::ENET_PACKET_FLAG_RELIABLE as u32;
pub(crate) const UNSEQUENCED: u32 = ENetPacketFlag::ENET_PACKET_FLAG_UNSEQUENCED as u32;
pub(crate) const UNRELIABLE_FRAGMENT: u32 =
    ENetPacketFlag::ENET_PACKET_FLAG_UNRELIABLE_FRAGMENT as u32;
