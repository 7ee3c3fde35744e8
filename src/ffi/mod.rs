#![allow(non_snake_case)] // parameter names follow the C headers

//! The `extern "C"` surface: one submodule per ENet noun.
//!
//! Every entry point is thin: it checks its pointers, runs its body inside
//! `guard!` so that no panic unwinds into C, and forwards to safe Rust.
//! The release profile also sets `panic = "abort"` as a backstop.

/// Runs an entry point's body and maps a panic to the function's failure
/// value (`-1`, NULL, 0 or `()`), so no unwind ever crosses into C.
macro_rules! guard {
    ($failure:expr, $body:expr) => {
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| $body)) {
            Ok(value) => value,
            Err(_) => $failure,
        }
    };
}

pub mod address;
pub mod callbacks;
mod codec;
pub mod crc;
mod driver;
pub mod enet_rs;
pub mod enet_rs_dtls;
pub mod enet_rs_net;
pub mod enet_rs_netsim;
pub mod host;
pub mod list;
pub mod packet;
pub mod peer;
pub mod protocol;
pub mod range_coder;
pub mod sender;
pub mod socket;
pub mod time;
