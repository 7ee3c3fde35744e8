//! enet-rs: ENet 1.3.17 rebuilt in Rust, shipped as a drop-in `libenet.so.7`.
//!
//! Layers (see `DESIGN.md` in the project's shared notes):
//! - [`abi`]: the `#[repr(C)]` types of the stock headers, plain data;
//! - [`wire`]: bytes on the wire (CRC-32, range coder), no-panic on input;
//! - [`time`]: wrapping 32-bit millisecond arithmetic;
//! - [`net`]: the UDP socket and address glue over the OS;
//! - [`ffi`]: the `extern "C"` entry points, panic boundary and allocator.
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

// The library C programs load must abort on a panic: a panic unwinding
// into C frames is undefined behaviour, and the `ffi` guards' catch only
// backs that up. Cargo builds tests to unwind, so the check applies to the
// build CMake installs (build.rs sets the cfg from ENET_RS_SHIPPED_LIBRARY).
#[cfg(all(enet_rs_shipped_library, not(panic = "abort")))]
compile_error!(
    "the shipped libenet must be built with panic = \"abort\" (see Cargo.toml profiles)"
);

pub mod abi;
pub mod ffi;
pub mod mem;
pub mod net;
pub mod proto;
pub mod time;
pub mod wire;
