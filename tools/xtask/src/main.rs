//! `cargo xtask STEP [ARGS...]`: the named steps that drive the project's
//! Rust builds and check what they made. Shell remains where a test needs
//! wine, qemu or processes talking to each other (`scripts/test-*.sh`,
//! `tests-c/`); those scripts call these steps for their builds.
//!
//! Every step runs from the repository's root, as the scripts it replaced
//! did, whatever directory cargo was started in; paths given as arguments
//! are taken relative to that starting directory.

mod build_linux;
mod build_windows;
mod check_targets;
mod hot_text;
mod process;
mod rtstartup;
mod size_report;
mod targets;

use std::process::ExitCode;

use process::Exit;

/// A step: its name, its arguments, what it does (one line), and its body.
struct Step {
    name: &'static str,
    usage: &'static str,
    summary: &'static str,
    run: fn(&[String]) -> Result<(), Exit>,
}

const STEPS: &[Step] = &[
    Step {
        name: "build-windows",
        usage: "[--target TARGET] [cargo rustc args]",
        summary: "enet.dll and libenet.dll.a as shipped (x86_64, or i686-pc-windows-gnu) in target/windows",
        run: build_windows::run,
    },
    Step {
        name: "build-linux-target",
        usage: "TARGET [DIR]",
        summary: "libenet.so.7 as shipped for another Linux target, staged in DIR (scripts/lib/linux-targets.sh)",
        run: build_linux::run,
    },
    Step {
        name: "build-arm64",
        usage: "[DIR]",
        summary: "build-linux-target aarch64-unknown-linux-gnu [DIR] (default DIR: target/cross/lib)",
        run: build_linux::run_arm64,
    },
    Step {
        name: "check-targets",
        usage: "[TARGET...]",
        summary: "cargo check of the library for macOS, FreeBSD, Android and iOS (no TARGET: all seven)",
        run: check_targets::run,
    },
    Step {
        name: "hot-text",
        usage: "",
        summary: "regenerate link/hot-text.txt from callgrind runs of the idle server and the message benchmarks",
        run: hot_text::run,
    },
    Step {
        name: "rtstartup",
        usage: "TARGET",
        summary: "Rust's start-up objects for 32-bit MinGW, made from Debian's std sources (prints their directory)",
        run: rtstartup::run,
    },
    Step {
        name: "size-report",
        usage: "LIBRARY [ROWS]",
        summary: "what a built libenet.so or enet.dll is made of: stripped size, code per crate, sections",
        run: size_report::run,
    },
];

fn help() {
    println!("usage: cargo xtask STEP [ARGS...]\n\nsteps:");
    let width = STEPS
        .iter()
        .map(|step| step.name.len() + 1 + step.usage.len())
        .max()
        .unwrap_or(0);
    for step in STEPS {
        let call = format!("{} {}", step.name, step.usage);
        println!("  {call:width$}  {}", step.summary);
    }
    println!("  {:width$}  this list", "help");
}

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = arguments.first() else {
        help();
        return ExitCode::from(2);
    };
    if matches!(name.as_str(), "help" | "--help" | "-h") {
        help();
        return ExitCode::SUCCESS;
    }
    let Some(step) = STEPS.iter().find(|step| step.name == name) else {
        eprintln!("xtask: no step {name} (cargo xtask help lists them)");
        return ExitCode::from(2);
    };
    if let Err(error) = process::enter_repository() {
        eprintln!("xtask: {error}");
        return ExitCode::from(2);
    }
    match (step.run)(&arguments[1..]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Exit(code)) => ExitCode::from(code),
    }
}
