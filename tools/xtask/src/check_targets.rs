//! `check-targets [TARGET...]`: the library compiles for the systems we
//! build but cannot run here. `cargo check` of enet-rs, with std built from
//! Debian's Rust sources (as build-windows does), for macOS on Intel and
//! Apple silicon, FreeBSD, Android on aarch64, armv7 and x86_64 and iOS on
//! aarch64: zero errors, zero warnings. macOS and iOS have no recvmmsg,
//! sendmmsg or eventfd: those systems take the per-datagram batches and a
//! pipe as the waker (src/net/sys); Android is Linux to the engine.
//!
//! The Apple and Android targets are checked without the default `ring`
//! feature (encrypted hosts' record ciphers, src/dtls/aead.rs): ring's
//! build compiles C and assembly with the platform's own C compiler
//! (Xcode's clang, the NDK's), which this machine does not have; with the
//! kit they build with it (docs/platforms.md).

use crate::process::{command, execute, Exit};

/// All seven, the list checked when none is named.
const TARGETS: &[&str] = &[
    "x86_64-apple-darwin",
    "aarch64-apple-darwin",
    "x86_64-unknown-freebsd",
    "aarch64-linux-android",
    "armv7-linux-androideabi",
    "x86_64-linux-android",
    "aarch64-apple-ios",
];

/// Whether `target` needs the platform's own C compiler for ring.
fn without_ring(target: &str) -> bool {
    target.contains("-apple-") || target.contains("-android")
}

pub fn run(arguments: &[String]) -> Result<(), Exit> {
    let targets: Vec<&str> = if arguments.is_empty() {
        TARGETS.to_vec()
    } else {
        arguments.iter().map(String::as_str).collect()
    };
    for target in &targets {
        let features: &[&str] = if without_ring(target) {
            &["--no-default-features"]
        } else {
            &[]
        };
        println!("-- cargo check --target {target} {}", features.join(" "));
        execute(
            command("/usr/bin/cargo")
                .env("RUSTC", "/usr/bin/rustc")
                .env("RUSTC_BOOTSTRAP", "1")
                .env("RUSTFLAGS", "-D warnings")
                .args([
                    "check", "-q", "--locked", "-p", "enet-rs", "--lib", "--target", target,
                ])
                .args(features)
                .args([
                    "-Zbuild-std=std,panic_abort",
                    "--target-dir",
                    "target/check",
                ]),
        )?;
    }
    println!("compiles for: {}", targets.join(" "));
    Ok(())
}
