//! `libenet.so.7` and `libenet.a`: the engine crate's `extern "C"` entry
//! points (its `ffi` module, every one `#[no_mangle]`), linked with
//! link-time optimization across the engine, the standard library and the
//! other crates. The exports are the engine's; this crate adds none.

// Links the engine: its `#[no_mangle]` functions are the library's exports.
extern crate engine;
