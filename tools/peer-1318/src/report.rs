//! What a side says, and how it ends: the output contract of
//! `tests-c/interop/peer.c`, kept to the byte.
//!
//! * stdout: `PORT <n>` (server only), then `<role>: ...` lines that are the
//!   same for every pairing and option combination (compared with
//!   `tests-c/interop/expected/<case>.<role>.out`);
//! * stderr: diagnostics that may vary between runs;
//! * exit status: 0 success, 1 a failed check (`<role>: FAIL ...` on
//!   stdout), 2 bad usage, 3 the deadline passed (`<role>: TIMEOUT while
//!   waiting for ...` on stdout).

use std::fmt;
use std::io::Write;
use std::process;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

static ROLE: OnceLock<&'static str> = OnceLock::new();
static DEADLINE: OnceLock<Instant> = OnceLock::new();

/// Names this side in every line from now on ("server" or "client").
pub fn set_role(role: &'static str) {
    let _ = ROLE.set(role);
}

/// Starts the clock of `--deadline-ms`.
pub fn set_deadline(after: Duration) {
    let _ = DEADLINE.set(Instant::now() + after);
}

fn role() -> &'static str {
    ROLE.get().copied().unwrap_or("peer")
}

/// Writes one whole line to stdout and flushes it, so that a side killed
/// later (the timeout case) has already said everything it said.
fn stdout_line(args: fmt::Arguments) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}: {}", role(), args);
    let _ = out.flush();
}

/// A deterministic line on stdout (use `say!`).
pub fn say_line(args: fmt::Arguments) {
    stdout_line(args);
}

/// A diagnostic on stderr (use `note!`).
pub fn note_line(args: fmt::Arguments) {
    eprintln!("{}: {}", role(), args);
}

/// A failed check: `<role>: FAIL ...` on stdout, exit status 1 (use `fail!`).
pub fn fail_line(args: fmt::Arguments) -> ! {
    stdout_line(format_args!("FAIL {args}"));
    process::exit(1);
}

/// Ends the run with status 3 once `--deadline-ms` has passed.
pub fn check_deadline(waiting_for: &str) {
    if DEADLINE
        .get()
        .is_some_and(|deadline| Instant::now() > *deadline)
    {
        stdout_line(format_args!("TIMEOUT while waiting for {waiting_for}"));
        process::exit(3);
    }
}

/// Prints the server's port, the first line the driver waits for.
pub fn port_line(port: u16) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "PORT {port}");
    let _ = out.flush();
}

macro_rules! say {
    ($($arg:tt)*) => { $crate::report::say_line(format_args!($($arg)*)) };
}

macro_rules! note {
    ($($arg:tt)*) => { $crate::report::note_line(format_args!($($arg)*)) };
}

macro_rules! fail {
    ($($arg:tt)*) => { $crate::report::fail_line(format_args!($($arg)*)) };
}
