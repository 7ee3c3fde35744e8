//! Memory that C code sees or frees.
//!
//! ENet programs may install their own allocator with
//! `enet_initialize_with_callbacks`, and they hold pointers into the host,
//! the peer array, channels and packets. All of that memory therefore comes
//! from the installed hooks ([`hooks`]) and is owned on the Rust side by the
//! small safe owners here ([`CBox`], [`CSlice`], [`PacketRef`], and
//! [`channels::ChannelArray`] for the peers' channels, which recycles them
//! with the default allocator), so the protocol engine can use it without
//! `unsafe`.
//!
//! This module, `ffi` and `net` are the only places with `unsafe`.

pub mod cbox;
pub mod channels;
mod checker;
pub mod chunked;
pub mod heap;
pub mod hooks;
pub mod packet;
mod packet_flags;
pub mod pool;
pub mod program_code;

pub use cbox::{CBox, CSlice};
pub use chunked::ChunkedPacket;
pub use packet::{PacketRef, PacketView};
pub use packet_flags::PacketFlags;

use crate::abi::ENetCallbacks;

/// Installs the program's allocator hooks ([`hooks::install`]). When they
/// replace `malloc` and `free`, the packet pool is switched off first: its
/// idle blocks came from libc's `malloc` (it runs only on the default
/// allocator) and go back to libc's `free`.
pub fn install_hooks(callbacks: &ENetCallbacks) -> Result<(), hooks::PartialHooks> {
    if hooks::replaces_allocator(callbacks)? {
        pool::switch_off();
    }
    hooks::install(callbacks)
}
