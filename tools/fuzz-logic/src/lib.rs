//! The bodies of the fuzz targets under `fuzz/`. They live here, in a
//! member of the main workspace, so that the stable toolchain runs them
//! too: `tests/replay.rs` feeds every file of `fuzz/corpus/TARGET/` to
//! [`run`], and the cargo-fuzz binaries in `fuzz/fuzz_targets/` only call
//! the same functions.
//!
//! Each body takes any bytes, never panics on its own account, and panics
//! (an assertion) when the code under test breaks one of its properties.

pub mod commands;
pub mod driver;
pub mod dtls_receive;
pub mod engine;
pub mod input;
pub mod netsim;
pub mod range_coder;
pub mod reassembly;
pub mod wire_parse;

/// The targets, by the name of their corpus directory.
pub const TARGETS: [&str; 6] = [
    "wire_parse",
    "engine",
    "range_coder",
    "reassembly",
    "dtls_receive",
    "netsim",
];

/// Runs the body of `target` on `data`; `false` for an unknown target.
pub fn run(target: &str, data: &[u8]) -> bool {
    match target {
        "wire_parse" => wire_parse::run(data),
        "engine" => engine::run(data),
        "range_coder" => range_coder::run(data),
        "reassembly" => reassembly::run(data),
        "dtls_receive" => dtls_receive::run(data),
        "netsim" => netsim::run(data),
        _ => return false,
    }
    true
}
