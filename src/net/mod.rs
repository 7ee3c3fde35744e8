//! The operating-system glue: UDP/TCP sockets, waiting, address lookup.
//! `unsafe` is allowed here (and in `ffi`) only.

pub mod address;
pub mod socket;
