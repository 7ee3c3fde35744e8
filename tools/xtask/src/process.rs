//! Running the programs a step drives: from the repository's root, with
//! the environment the caller gave `cargo xtask`, not the one `cargo run`
//! adds for its own binary.

use std::env;
use std::ffi::OsString;
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;

/// A step's failure: the process exits with this status (its message,
/// if any, has been printed).
#[derive(Debug)]
pub struct Exit(pub u8);

/// The directory `cargo xtask` was started in.
static STARTED_IN: OnceLock<PathBuf> = OnceLock::new();

/// The repository's root: this crate lives in `tools/xtask`.
pub fn repository() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Remembers where the caller was and moves to the repository's root,
/// where every step works (relative target directories, `scripts/lib`).
pub fn enter_repository() -> io::Result<()> {
    STARTED_IN.get_or_init(|| env::current_dir().unwrap_or_default());
    env::set_current_dir(repository().canonicalize()?)
}

/// A path the caller named, taken relative to where they started.
pub fn user_path(argument: &str) -> PathBuf {
    STARTED_IN
        .get()
        .map_or_else(PathBuf::new, Clone::clone)
        .join(argument)
}

/// Prints `xtask STEP: MESSAGE` on stderr and returns the exit status.
pub fn fail(step: &str, code: u8, message: impl std::fmt::Display) -> Exit {
    eprintln!("xtask {step}: {message}");
    Exit(code)
}

/// What `cargo run` sets for the program it runs, which the programs a
/// step runs must not inherit: a nested cargo would read them as its own
/// caller's.
const CARGO_RUN_VARIABLES: &[&str] = &["CARGO", "CARGO_MANIFEST_DIR", "CARGO_MANIFEST_PATH"];

/// A command for `program` with the caller's environment: without the
/// package variables `cargo run` set for this binary and without the
/// library directories it put before the caller's `LD_LIBRARY_PATH`
/// (this binary's target directory and the toolchain's own libraries,
/// which another rustc must not load from).
pub fn command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = Command::new(program);
    for (name, _) in env::vars_os() {
        let name = name.to_string_lossy();
        if CARGO_RUN_VARIABLES.contains(&name.as_ref()) || name.starts_with("CARGO_PKG_") {
            command.env_remove(name.as_ref());
        }
    }
    match callers_library_path() {
        Some(path) if !path.is_empty() => command.env("LD_LIBRARY_PATH", path),
        Some(_) => command.env_remove("LD_LIBRARY_PATH"),
        None => &mut command,
    };
    command
}

/// `LD_LIBRARY_PATH` without what `cargo run` added, or `None` when it
/// was not run by cargo (nothing to undo).
fn callers_library_path() -> Option<OsString> {
    let cargo = PathBuf::from(env::var_os("CARGO")?);
    let toolchain_libraries = cargo.parent()?.parent()?.join("lib");
    let binary_directory = env::current_exe().ok()?.parent()?.to_path_buf();
    let added = |entry: &Path| {
        entry == binary_directory
            || entry == binary_directory.join("deps")
            || entry.starts_with(&toolchain_libraries)
    };
    let path = env::var_os("LD_LIBRARY_PATH")?;
    let kept: Vec<PathBuf> = env::split_paths(&path)
        .filter(|entry| !added(entry))
        .collect();
    env::join_paths(kept).ok()
}

/// The exit status a shell would report for `status`.
pub fn exit_code(status: ExitStatus) -> u8 {
    match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code & 0xff).unwrap_or(1),
        (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(1),
        (None, None) => 1,
    }
}

/// Runs `command`, its output going where ours goes; its failure is ours.
pub fn execute(command: &mut Command) -> Result<(), Exit> {
    let status = command.status().map_err(|error| {
        eprintln!("xtask: cannot run {:?}: {error}", command.get_program());
        Exit(127)
    })?;
    if status.success() {
        Ok(())
    } else {
        Err(Exit(exit_code(status)))
    }
}

/// Runs `command` and returns what it printed on stdout (its stderr goes
/// to ours); its failure is ours.
pub fn output(command: &mut Command) -> Result<String, Exit> {
    let done = command.stderr(Stdio::inherit()).output().map_err(|error| {
        eprintln!("xtask: cannot run {:?}: {error}", command.get_program());
        Exit(127)
    })?;
    if done.status.success() {
        Ok(String::from_utf8_lossy(&done.stdout).into_owned())
    } else {
        Err(Exit(exit_code(done.status)))
    }
}

/// Whether the shell's `command -v TOOL` would find it: a path to an
/// executable file, or a name found on `PATH`.
pub fn found(tool: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let executable = |path: &Path| {
        path.metadata()
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    };
    if tool.contains('/') {
        return executable(Path::new(tool));
    }
    env::var_os("PATH")
        .is_some_and(|path| env::split_paths(&path).any(|dir| executable(&dir.join(tool))))
}
