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
pub mod wait_handle;
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
pub use wait_handle::*;
#[cfg(windows)]
pub use win32::*;
