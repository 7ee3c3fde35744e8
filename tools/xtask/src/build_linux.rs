//! `build-linux-target TARGET [DIR]`: our libenet.so.7 cross-built for
//! another Linux target the way the shipped library is built (release,
//! ENET_RS_SHIPPED_LIBRARY=1, --locked), staged as DIR/libenet.so.7
//! (default DIR: the target's Cargo target directory's lib/, e.g.
//! target/cross-s390x-unknown-linux-gnu/lib; for aarch64 target/cross/lib).
//! TARGET: aarch64-unknown-linux-gnu, i686-unknown-linux-gnu,
//! armv7-unknown-linux-gnueabihf or s390x-unknown-linux-gnu (the table:
//! scripts/lib/linux-targets.sh). Prints the staged path last;
//! scripts/test-linux-target.sh runs it. `build-arm64 [DIR]` is the aarch64
//! build (after scripts/setup-arm64.sh; scripts/test-arm64.sh runs it
//! under qemu-aarch64).
//!
//! Why this toolchain: rustup's cargo/rustc (first on PATH) has no std for
//! these targets, and nothing outside Debian's packages may be installed.
//! Debian's Rust (rustc-web, cargo-web) has aarch64's std as a package of
//! its own (libstd-rust-web-dev:arm64, installed beside the amd64 one), so
//! nothing of std is compiled for aarch64. The i386, armhf and s390x std
//! packages are of another Rust release (1.85) than Debian's rustc, so for
//! those std is compiled from Debian's sources (-Zbuild-std; about two
//! minutes of CPU each).

use std::fs;
use std::path::{Path, PathBuf};

use crate::process::{command, execute, fail, found, output, user_path, Exit};
use crate::targets;

const STEP: &str = "build-linux-target";

const USAGE: &str = "usage: cargo xtask build-linux-target TARGET [DIR]
  TARGET: aarch64-unknown-linux-gnu, i686-unknown-linux-gnu,
          armv7-unknown-linux-gnueabihf or s390x-unknown-linux-gnu
          (the table: scripts/lib/linux-targets.sh)
  DIR: where libenet.so.7 is staged (default: the target's Cargo target directory's lib/)";

pub fn run(arguments: &[String]) -> Result<(), Exit> {
    match arguments {
        [target] => build(target, None),
        [target, dir] => build(target, Some(user_path(dir))),
        _ => {
            eprintln!("{USAGE}");
            Err(Exit(2))
        }
    }
}

pub fn run_arm64(arguments: &[String]) -> Result<(), Exit> {
    match arguments {
        [] => build("aarch64-unknown-linux-gnu", None),
        [dir] => build("aarch64-unknown-linux-gnu", Some(user_path(dir))),
        _ => {
            eprintln!("usage: cargo xtask build-arm64 [DIR]     (after scripts/setup-arm64.sh)");
            Err(Exit(2))
        }
    }
}

fn build(target: &str, dir: Option<PathBuf>) -> Result<(), Exit> {
    let table = targets::linux(target)?;
    let dir = dir.unwrap_or_else(|| Path::new(&table.dir).join("lib"));
    let gnu = &table.gnu;
    for tool in [
        "/usr/bin/cargo".to_owned(),
        "/usr/bin/rustc".to_owned(),
        format!("{gnu}-gcc"),
        format!("{gnu}-readelf"),
        format!("{gnu}-ar"),
    ] {
        if !found(&tool) {
            return Err(fail(
                STEP,
                2,
                format!("{tool} missing (run {})", table.setup),
            ));
        }
    }
    let (std_arguments, std_note): (&[&str], String) = if table.prebuilt_std {
        if !Path::new(&format!("/usr/lib/rustlib/{target}/lib")).is_dir() {
            return Err(fail(
                STEP,
                2,
                format!("Debian's {target} std missing (run {})", table.setup),
            ));
        }
        (&[], format!("its prebuilt {target} std"))
    } else {
        if !Path::new("/usr/lib/rustlib/src/rust/library").is_dir() {
            return Err(fail(
                STEP,
                2,
                "Debian's Rust sources missing for -Zbuild-std (apt-get install rust-web-src)",
            ));
        }
        (
            &["-Zbuild-std=std,panic_abort"],
            "std built from its sources".to_owned(),
        )
    };
    // Debian's rustc names functions in Rust's v0 mangling; rustup's stable
    // compiler, which link/hot-text.txt was made with, names our crate's in
    // the legacy one and its prebuilt std's in v0. The same legacy names
    // for our crates here let build.rs place the engine's hot functions
    // first in the library's text too (and, with Debian's prebuilt std,
    // std's: a std built here takes the legacy names as well, which the
    // list does not name).
    let version = output(command("/usr/bin/rustc").arg("--version"))?;
    println!(
        "== cargo build --release --target {target} (Debian's {}, {std_note})",
        version.trim_end()
    );
    // A target directory of its own per target: the host build in target/
    // (rustup's cargo, another compiler) is never invalidated by this one,
    // nor this by it, nor one target's by another's.
    execute(
        command("/usr/bin/cargo")
            .envs(table.cargo_env.iter().map(|(name, value)| (name, value)))
            .env("CARGO_TERM_COLOR", "never")
            .env("RUSTC_BOOTSTRAP", "1")
            .env("ENET_RS_SHIPPED_LIBRARY", "1")
            .env(
                "RUSTFLAGS",
                "-Z unstable-options -C symbol-mangling-version=legacy",
            )
            .args([
                "build",
                "--release",
                "--locked",
                "-p",
                "libenet",
                "--target",
                target,
            ])
            .args(["--target-dir", &table.dir])
            .args(std_arguments),
    )?;

    let built = Path::new(&table.dir)
        .join(target)
        .join("release/libenet.so");
    let staged = dir.join("libenet.so.7");
    let copy = dir.join("libenet.so.7.tmp");
    // A copy, not a symlink: the matrix checks which file is mapped by its
    // real path, and a copy keeps DIR valid while target/ is rebuilt.
    fs::create_dir_all(&dir)
        .and_then(|()| fs::copy(&built, &copy))
        .and_then(|_| fs::rename(&copy, &staged))
        .map_err(|error| {
            fail(
                STEP,
                1,
                format!("staging {} in {}: {error}", built.display(), dir.display()),
            )
        })?;

    // Programs built against stock ENet record libenet.so.7; the loader
    // finds ours only if that is our SONAME. And it must really be the
    // target's object.
    let headers = output(
        command(format!("{gnu}-readelf"))
            .arg("-h")
            .arg("-d")
            .arg(&staged),
    )?;
    let machine = headers.lines().any(|line| {
        line.trim_start()
            .strip_prefix("Machine:")
            .is_some_and(|value| value.trim_start_matches(' ') == table.machine)
    });
    if !machine {
        return Err(fail(
            STEP,
            1,
            format!("{} is not an {} object", staged.display(), table.machine),
        ));
    }
    if !headers.contains("Library soname: [libenet.so.7]") {
        return Err(fail(
            STEP,
            1,
            format!("{} lacks SONAME libenet.so.7", staged.display()),
        ));
    }
    let absolute = dir.canonicalize().unwrap_or(dir).join("libenet.so.7");
    println!(
        "== staged ({}, SONAME libenet.so.7): {}",
        table.machine,
        absolute.display()
    );
    Ok(())
}
