//! enet-rs: ENet 1.3.17 rebuilt in Rust, shipped as a drop-in `libenet.so.7`.
//!
//! The modules, from the bottom layer up (each uses only those listed
//! before it):
//! - [`abi`]: the `#[repr(C)]` types and constants of the stock headers and
//!   of `enet/enet_rs.h`, plain data;
//! - [`time`]: wrapping 32-bit millisecond arithmetic;
//! - [`config`]: the `ENET_RS_*` environment switches, named, read and
//!   parsed in one place;
//! - [`wire`]: bytes on the wire (header, commands, checksum, datagram
//!   builder, CRC-32, range coder), no panic on any input;
//! - [`mem`]: memory C code sees or frees (allocator hooks, `CBox`,
//!   counted packets);
//! - [`proto`]: the sans-IO protocol engine and its service loop, with no
//!   socket and no clock;
//! - [`net`]: the clock, sockets, addresses and datagram batches over the
//!   operating system, with the platform layer in [`net::sys`];
//! - [`dtls`]: encrypted hosts, a transport between the engine and the
//!   socket;
//! - [`endpoint`]: one host's assembly (engine, socket I/O, request queue,
//!   encryption) for both APIs, made by one builder;
//! - [`ffi`]: the `extern "C"` entry points, each behind a panic guard.
//!
//! `docs/architecture.md` in the repository says what each module owns and
//! may depend on, and follows one `enet_host_service` call through them.
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

// The engine is built with its defaults or without them, never with `ring`
// alone: both name the same code, but a build of the libraries alone and a
// build beside a crate that takes the engine's defaults would give it two
// symbol hashes, and link/hot-text.txt names one (crates/libenet/Cargo.toml).
#[cfg(all(feature = "ring", not(feature = "default")))]
compile_error!(
    "enable enet-rs's `default` feature rather than `ring` alone (see crates/libenet/Cargo.toml)"
);

// Before the modules: its macros are in scope in all of them.
#[macro_use]
mod named;

pub mod abi;
pub mod config;
pub mod dtls;
pub mod endpoint;
pub mod ffi;
pub mod mem;
pub mod net;
pub mod proto;
pub mod time;
pub mod wire;
