//! `build-windows [--target TARGET] [cargo rustc arguments]`: enet.dll for
//! Windows, built here on Linux as the shipped library is (release, panics
//! abort): `target/windows/TARGET/release/enet.dll` and its import library
//! `libenet.dll.a` (mingw's name; link with -lenet, or name the file).
//! TARGET: x86_64-pc-windows-gnu (the default) or i686-pc-windows-gnu
//! (the table: scripts/lib/windows-targets.sh). CARGO_TARGET_DIR (default
//! target/windows) builds elsewhere, as for experiments that should leave
//! the shared build alone.
//!
//! rustup's toolchain here has no Windows std, so this uses Debian's Rust
//! (rustc-web, cargo-web) and builds std from Debian's sources
//! (rust-web-src, -Zbuild-std); mingw-w64 links. scripts/setup-debian.sh
//! installs all of it. On a Windows machine with rustup, build natively
//! instead, as the DLL alone for the reason below: `cargo rustc --release
//! -p enet-rs --lib --crate-type cdylib` (docs/platforms.md, "Windows").

use std::fs;
use std::path::Path;

use crate::process::{command, execute, fail, found, Exit};
use crate::{rtstartup, targets};

const STEP: &str = "build-windows";

pub fn run(arguments: &[String]) -> Result<(), Exit> {
    let (target, rest) = match arguments.first().map(String::as_str) {
        Some("--target") => match arguments.get(1) {
            Some(target) => (target.as_str(), &arguments[2..]),
            None => return Err(fail(STEP, 2, "--target needs a target")),
        },
        Some(first) if first.starts_with("--target=") => {
            (&first["--target=".len()..], &arguments[1..])
        }
        _ => ("x86_64-pc-windows-gnu", arguments),
    };
    let mingw = targets::windows_mingw(target)?;
    let target_dir =
        std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target/windows".to_owned());
    for tool in ["/usr/bin/cargo", "/usr/bin/rustc", &format!("{mingw}-gcc")] {
        if !found(tool) {
            return Err(fail(
                STEP,
                1,
                format!("missing {tool} (run scripts/setup-debian.sh)"),
            ));
        }
    }
    if !Path::new("/usr/lib/rustlib/src/rust/library").is_dir() {
        return Err(fail(
            STEP,
            1,
            "missing Debian's Rust sources for -Zbuild-std (apt-get install rust-web-src)",
        ));
    }
    // RUSTC_BOOTSTRAP lets Debian's stable compiler take -Zbuild-std.
    // ENET_RS_SHIPPED_LIBRARY makes the build refuse panic = "unwind".
    //
    // `cargo rustc --crate-type cdylib` builds the library as the DLL
    // alone: Cargo runs the release profile's LTO only for a library whose
    // crate types can all take it, and Cargo.toml's list includes `rlib`,
    // so a plain `cargo build` linked every crate's own object code
    // instead. ELF linkers then drop the unreachable functions
    // (--gc-sections), but GNU ld's PE script keeps every `.pdata` section,
    // and each function's unwind entry there keeps the function: the DLL
    // held whole crates (x509-cert's CSR parsing, std's process spawning),
    // 3.8 MB stripped; with LTO, 1.9 MB (docs/packaging.md, "What the
    // shipped binaries are made of").
    //
    // -Zbuild-std-features: std's backtraces (RUST_BACKTRACE=1 before a
    // panic aborts) list bare addresses instead of symbolizing them
    // (backtrace-trace-only), which leaves std's DWARF reader and demangler
    // (gimli, addr2line, object, miniz_oxide, rustc-demangle) out: 178 KB.
    // The DLL as shipped is stripped, and the symbolizer reads only the
    // DLL's own symbols and DWARF, so it found no names there anyway; the
    // addresses, less the DLL's load address, resolve against
    // enet.dll.debug. The panic message itself is printed as before.
    // panic-unwind and backtrace are Cargo's default list, which the option
    // replaces.
    let mut cargo = command("/usr/bin/cargo");
    // 32-bit MinGW links Rust's start-up objects rsbegin.o and rsend.o,
    // which -Zbuild-std does not build: the rtstartup step compiles them,
    // and a -L for the target's crates alone (not build scripts) finds
    // them.
    if target == "i686-pc-windows-gnu" {
        let directory = rtstartup::objects(target)?;
        cargo.env(
            "CARGO_TARGET_I686_PC_WINDOWS_GNU_RUSTFLAGS",
            format!("-L native={}", directory.display()),
        );
    }
    execute(
        cargo
            .env("RUSTC", "/usr/bin/rustc")
            .env("RUSTC_BOOTSTRAP", "1")
            .env("ENET_RS_SHIPPED_LIBRARY", "1")
            .args([
                "rustc",
                "--release",
                "--locked",
                "-p",
                "enet-rs",
                "--lib",
                "--crate-type",
                "cdylib",
            ])
            .args(["--target", target, "-Zbuild-std=std,panic_abort"])
            .arg("-Zbuild-std-features=panic-unwind,backtrace,backtrace-trace-only")
            .args(["--target-dir", &target_dir])
            .args(rest),
    )?;
    let out = format!("{target_dir}/{target}/release");
    for file in ["enet.dll", "libenet.dll.a"] {
        let path = format!("{out}/{file}");
        let size = fs::metadata(&path)
            .map_err(|error| fail(STEP, 2, format!("{path}: {error}")))?
            .len();
        println!("{size} {path}");
    }
    Ok(())
}
