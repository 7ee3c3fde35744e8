//! The public C types of ENet 1.3.17, one submodule per stock header.
//!
//! Everything here is plain data with C layout; no behaviour. The names are
//! C's (camelCase fields, `ENet` prefixes) because they are the ABI.
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

pub mod callbacks;
pub mod enet;
pub mod enet_rs;
pub mod list;
pub mod protocol;
pub mod types;
#[cfg(unix)]
pub mod unix;
#[cfg(windows)]
pub mod win32;

pub use callbacks::*;
pub use enet::*;
pub use enet_rs::*;
pub use list::*;
pub use protocol::*;
pub use types::*;
#[cfg(unix)]
pub use unix::*;
#[cfg(windows)]
pub use win32::*;

/// A host's wait handle (`enet_rs_host_get_wait_handle`): a file
/// descriptor on Unix. `enet/enet_rs.h` declares it by hand, per system
/// (`cbindgen.toml`), as the generator writes one header for all.
#[cfg(unix)]
pub type ENetRsWaitHandle = core::ffi::c_int;
/// A host's wait handle (`enet_rs_host_get_wait_handle`): an event
/// `HANDLE` on Windows, spelled as `windows-sys` spells `HANDLE` (a
/// pointer-sized integer, passed as C's `void *` is).
#[cfg(windows)]
pub type ENetRsWaitHandle = isize;

/// `enet_rs_host_get_wait_handle`'s failure on Unix: -1.
#[cfg(unix)]
pub const ENET_RS_NO_WAIT_HANDLE: ENetRsWaitHandle = -1;
/// `enet_rs_host_get_wait_handle`'s failure on Windows: NULL.
#[cfg(windows)]
pub const ENET_RS_NO_WAIT_HANDLE: ENetRsWaitHandle = 0;
