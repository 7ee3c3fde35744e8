//! `rtstartup TARGET`: Rust's start-up objects rsbegin.o and rsend.o for
//! 32-bit MinGW (i686-pc-windows-gnu), which rustc links around every
//! executable and DLL of that target: they register and deregister the
//! image's DWARF unwind tables (.eh_frame) with libgcc. rustup ships them
//! in the target's sysroot; Debian's Rust has no i686-pc-windows-gnu
//! sysroot, and -Zbuild-std builds std but not these two. So they are
//! compiled here from Debian's std sources (library/rtstartup), as Rust's
//! own bootstrap does (rustc --target T --emit=obj, RUSTC_BOOTSTRAP for
//! their #![no_core]), once per compiler, and cached under
//! target/rtstartup/TARGET. Prints that directory: rustc finds them
//! through a `-L native=DIR` search path (build-windows, and
//! tests-c/windows/cargo-test.sh, put it in
//! CARGO_TARGET_<TRIPLE>_RUSTFLAGS). 64-bit MinGW links none: its
//! unwinding is SEH, with tables the loader knows.

use std::fs;
use std::path::{Path, PathBuf};

use crate::process::{command, execute, fail, output, repository, Exit};

const STEP: &str = "rtstartup";
const SOURCES: &str = "/usr/lib/rustlib/src/rust/library/rtstartup";
const OBJECTS: [&str; 2] = ["rsbegin", "rsend"];

pub fn run(arguments: &[String]) -> Result<(), Exit> {
    let [target] = arguments else {
        eprintln!("usage: cargo xtask rtstartup TARGET   (prints the directory)");
        return Err(Exit(1));
    };
    println!("{}", objects(target)?.display());
    Ok(())
}

/// The directory holding `target`'s start-up objects, made if missing or
/// made by another compiler. RUSTC names the compiler (default Debian's).
pub fn objects(target: &str) -> Result<PathBuf, Exit> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "/usr/bin/rustc".to_owned());
    let sources = Path::new(SOURCES);
    if !sources.join("rsbegin.rs").is_file() {
        return Err(fail(
            STEP,
            1,
            format!("missing {SOURCES} (apt-get install rust-web-src)"),
        ));
    }
    let root = repository()
        .canonicalize()
        .map_err(|error| fail(STEP, 1, error))?;
    let dir = root.join("target/rtstartup").join(target);
    fs::create_dir_all(&dir)
        .map_err(|error| fail(STEP, 1, format!("{}: {error}", dir.display())))?;
    // The compiler that made them: another rustc (an upgrade) makes them
    // anew. The stamp is `rustc -vV` on one line.
    let stamp = output(command(&rustc).arg("-vV"))?.replace('\n', " ");
    let made = fs::read_to_string(dir.join("stamp")).unwrap_or_default();
    let stale = made.trim_end_matches('\n') != stamp
        || OBJECTS.iter().any(|object| {
            newer(
                &sources.join(format!("{object}.rs")),
                &dir.join(format!("{object}.o")),
            )
        });
    if stale {
        let _ = fs::remove_file(dir.join("stamp"));
        for object in OBJECTS {
            execute(
                command(&rustc)
                    .env("RUSTC_BOOTSTRAP", "1")
                    .args(["--target", target, "--emit=obj", "-o"])
                    .arg(dir.join(format!("{object}.o")))
                    .arg(sources.join(format!("{object}.rs"))),
            )?;
        }
        fs::write(dir.join("stamp"), format!("{stamp}\n"))
            .map_err(|error| fail(STEP, 1, format!("{}: {error}", dir.display())))?;
    }
    Ok(dir)
}

/// Whether `source` is newer than `made`, or `made` is missing (the
/// shell's `-nt`).
fn newer(source: &Path, made: &Path) -> bool {
    let modified = |path: &Path| path.metadata().and_then(|meta| meta.modified()).ok();
    match (modified(source), modified(made)) {
        (Some(source), Some(made)) => source > made,
        (Some(_), None) => true,
        _ => false,
    }
}
