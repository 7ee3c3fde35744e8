//! `hot-text`: regenerates link/hot-text.txt, the functions our library
//! runs in common use, which build.rs places together at the start of its
//! text so that fewer of its pages stay resident
//! (docs/performance.md#memory).
//!
//! Profiles, with callgrind, bench/engine.c's rss-server with 4000 idle
//! peers (bench/bench.c connects them) and bench/msgcost.c (reliable,
//! unreliable and bulk traffic between two hosts). Every function seen
//! running in libenet goes in the list, beside the current list's
//! functions that the library still has (some paths run only when timing
//! makes them): first those the server ran before it destroyed its host,
//! then the rest, then the other instances of the generic functions among
//! them. Run it after changes that move the hot path into new
//! functions; a stale list costs memory, never correctness
//! (tests-c/check_idle_text.sh finds it stale).
//!
//! The profiles are read by scripts/lib/hot_text.py, whose reading of the
//! list's tiers and patterns tests-c/check_idle_text.sh shares.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::process::{command, execute, exit_code, fail, found, Exit};

const STEP: &str = "hot-text";
const LIST: &str = "link/hot-text.txt";
/// The idle server's peers: as many as bench/engine.sh's, whose connect
/// burst (retransmissions, acknowledgements out of order) runs paths a
/// smaller one may not.
const PEERS: &str = "4000";
/// The loaded server's peers, each sending 20 messages a second.
const LOAD_PEERS: &str = "200";
/// Profiles name functions as the library does, so that each instance of
/// a generic function is told apart (scripts/lib/hot_text.py).
const MANGLED: &str = "--demangle=no";

fn die(message: impl std::fmt::Display) -> Exit {
    fail(STEP, 2, message)
}

pub fn run(arguments: &[String]) -> Result<(), Exit> {
    if !arguments.is_empty() {
        eprintln!("usage: cargo xtask hot-text");
        return Err(Exit(2));
    }
    for tool in ["valgrind", "python3"] {
        if !found(tool) {
            return Err(die(format!("{tool} is not installed")));
        }
    }
    execute(command("cargo").args(["build", "--release", "--locked", "-p", "libenet", "-q"]))
        .map_err(|_| die("cargo build failed"))?;
    let mut work = Work::new()?;
    let ours = work.ours_library(Path::new("target/release"))?;

    let cflags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2"];
    // msgcost.c takes our extension header (enet/enet_rs.h) from the
    // repository, the rest of ENet's from the system's stock headers.
    let programs: [(&str, &[&str], &[&str]); 3] = [
        ("msgcost", &["-idirafter", "include"], &["-lenet", "-ldl"]),
        ("engine", &[], &["-lenet"]),
        ("bench", &[], &["-lenet"]),
    ];
    for (name, before, after) in programs {
        execute(
            command("gcc")
                .args(cflags)
                .args(before)
                .arg(format!("bench/{name}.c"))
                .args(after)
                .arg("-o")
                .arg(work.path(name)),
        )
        .map_err(|_| die(format!("building {name}.c failed")))?;
    }

    let on_ours = |program: &str| {
        let mut command = command(program);
        command.env("LD_LIBRARY_PATH", &ours);
        command
    };
    for (kind, count) in [("reliable", "2000"), ("unreliable", "2000"), ("bulk", "20")] {
        let out = work.path(&format!("{kind}.cg"));
        let status = on_ours("valgrind")
            .arg("--tool=callgrind")
            .arg(MANGLED)
            .arg(format!("--callgrind-out-file={}", out.display()))
            .arg(work.path("msgcost"))
            .args([kind, count])
            .stdout(work.file(&format!("{kind}.cg.stdout"))?)
            .stderr(work.file(&format!("{kind}.cg.log"))?)
            .status();
        if !status.is_ok_and(|status| status.success()) {
            return Err(die(format!("msgcost {kind} failed")));
        }
    }

    // Each server under callgrind, its clients natively. A server's profile
    // up to enet_host_destroy (NAME.cg.1) is its tier; its teardown
    // (NAME.cg) is busy.
    let idle = profile_server(
        &mut work,
        &on_ours,
        "rss",
        &["rss-server", "--peers", PEERS],
        ("bench", &["idle-clients", "--peers", PEERS, "--hosts", "4"]),
    )?;
    let traffic = profile_server(
        &mut work,
        &on_ours,
        "load",
        &["load-server", "--peers", LOAD_PEERS, "--seconds", "3"],
        (
            "engine",
            &["load-clients", "--peers", LOAD_PEERS, "--seconds", "3"],
        ),
    )?;

    let mut busy: Vec<PathBuf> = ["bulk", "load", "reliable", "rss", "unreliable"]
        .iter()
        .map(|name| work.path(&format!("{name}.cg")))
        .collect();
    busy.sort();
    let patterns = crate::process::output(
        command("python3")
            .args(["scripts/lib/hot_text.py", "--keep", LIST])
            .arg(ours.join("libenet.so.7"))
            .arg("--idle")
            .arg(idle)
            .arg("--traffic")
            .arg(traffic)
            .arg("--busy")
            .args(&busy),
    )?;
    let header = "\
# Functions the engine runs in common use, by section-name pattern: build.rs
# places them first in the library's text (see docs/performance.md#memory).
# Made by `cargo xtask hot-text`; one glob pattern per line, '#' comments.
# Four tiers, each under its marker: what a server keeping idle peers runs
# (connects, pings, timeouts), what one whose peers send it messages adds,
# then the rest of common use (more kinds of traffic, teardown), then the
# patterns of the generic functions whose instances that ran are named
# exactly above (the other instances, and all of them in a build whose
# hashes differ).
";
    let fresh = format!("{LIST}.new");
    fs::write(&fresh, format!("{header}{patterns}"))
        .and_then(|()| fs::rename(&fresh, LIST))
        .map_err(|error| die(format!("writing {LIST}: {error}")))?;
    let count = patterns
        .lines()
        .filter(|line| !line.starts_with('#'))
        .count();
    println!("{LIST}: {count} patterns");
    Ok(())
}

/// Runs bench/engine.c's server with `server` arguments under callgrind
/// and its clients (`clients`: which program, its arguments before the
/// port) natively; returns the path of the server's profile up to
/// `enet_host_destroy`. NAME names its files (NAME.cg is the profile of
/// its teardown).
fn profile_server(
    work: &mut Work,
    on_ours: &dyn Fn(&str) -> Command,
    name: &str,
    server: &[&str],
    clients: (&str, &[&str]),
) -> Result<PathBuf, Exit> {
    let (out, err) = (format!("{name}.out"), format!("{name}.err"));
    let started = work.start(
        on_ours("valgrind")
            .arg("--tool=callgrind")
            .arg(MANGLED)
            .arg(format!(
                "--callgrind-out-file={}",
                work.path(&format!("{name}.cg")).display()
            ))
            .arg("--dump-before=enet_host_destroy")
            .arg(work.path("engine"))
            .args(server)
            .stdout(work.file(&out)?)
            .stderr(work.file(&err)?),
    )?;
    let port = work.wait_port(started, &out, &err, server[0], Duration::from_secs(60))?;
    let (program, arguments) = clients;
    let clients = work.start(
        on_ours(&work.path(program).display().to_string())
            .args(arguments)
            .args(["--port", &port])
            .stdout(Stdio::null())
            .stderr(work.file(&format!("{name}.clients.err"))?),
    )?;
    let status = work.bounded_wait(started, Duration::from_secs(300));
    if status != 0 {
        let errors = fs::read_to_string(work.path(&err)).unwrap_or_default();
        return Err(die(format!(
            "{} failed ({status}): {}",
            server[0],
            errors.trim_end()
        )));
    }
    work.bounded_wait(clients, Duration::from_secs(30));
    let profile = work.path(&format!("{name}.cg.1"));
    if fs::metadata(&profile).map_or(true, |meta| meta.len() == 0) {
        return Err(die(format!(
            "{}'s profile up to enet_host_destroy is missing",
            server[0]
        )));
    }
    Ok(profile)
}

/// The scratch directory and the programs started in it, which are
/// stopped (SIGKILL) if still running when the step ends, and the
/// directory removed.
struct Work {
    dir: PathBuf,
    started: Vec<Child>,
}

impl Work {
    fn new() -> Result<Self, Exit> {
        let dir = std::env::temp_dir().join(format!("enet-hot-text.{}", std::process::id()));
        fs::create_dir_all(&dir).map_err(|error| die(format!("{}: {error}", dir.display())))?;
        Ok(Self {
            dir,
            started: Vec::new(),
        })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn file(&self, name: &str) -> Result<File, Exit> {
        File::create(self.path(name)).map_err(|error| die(format!("{name}: {error}")))
    }

    /// A directory holding our library as libenet.so.7: `built` itself if
    /// it has one, or one made here for its libenet.so.
    fn ours_library(&mut self, built: &Path) -> Result<PathBuf, Exit> {
        let built = built
            .canonicalize()
            .map_err(|_| die(format!("no such directory {}", built.display())))?;
        if built.join("libenet.so.7").exists() {
            return Ok(built);
        }
        if !built.join("libenet.so").exists() {
            return Err(die(format!(
                "no libenet.so.7 or libenet.so in {}",
                built.display()
            )));
        }
        let ours = self.path("ours");
        fs::create_dir_all(&ours)
            .and_then(|()| {
                std::os::unix::fs::symlink(built.join("libenet.so"), ours.join("libenet.so.7"))
            })
            .map_err(|error| die(format!("{}: {error}", ours.display())))?;
        Ok(ours)
    }

    /// Starts `command` in the background; returns its index.
    fn start(&mut self, command: &mut Command) -> Result<usize, Exit> {
        let child = command
            .spawn()
            .map_err(|error| die(format!("cannot start {:?}: {error}", command.get_program())))?;
        self.started.push(child);
        Ok(self.started.len() - 1)
    }

    /// The port program `which` printed as `PORT n` to `out`, waiting at
    /// most `limit` (it fails if the program ends first).
    fn wait_port(
        &mut self,
        which: usize,
        out: &str,
        err: &str,
        name: &str,
        limit: Duration,
    ) -> Result<String, Exit> {
        let since = Instant::now();
        loop {
            let printed = fs::read_to_string(self.path(out)).unwrap_or_default();
            let port = printed.lines().find_map(|line| line.strip_prefix("PORT "));
            if let Some(port) = port {
                return Ok(port
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_owned());
            }
            if !matches!(self.started[which].try_wait(), Ok(None)) {
                let errors = fs::read_to_string(self.path(err)).unwrap_or_default();
                return Err(die(format!(
                    "{name} died before listening: {}",
                    errors.trim_end()
                )));
            }
            if since.elapsed() >= limit {
                return Err(die(format!("{name} printed no PORT")));
            }
            sleep(Duration::from_millis(100));
        }
    }

    /// Waits at most `limit` for program `which`; its exit status, or 124
    /// if it had to be killed.
    fn bounded_wait(&mut self, which: usize, limit: Duration) -> u8 {
        let child = &mut self.started[which];
        let since = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return exit_code(status),
                Ok(None) if since.elapsed() < limit => sleep(Duration::from_millis(100)),
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return 124;
                }
            }
        }
    }
}

impl Drop for Work {
    fn drop(&mut self) {
        for child in &mut self.started {
            if matches!(child.try_wait(), Ok(None)) {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
        let _ = fs::remove_dir_all(&self.dir);
    }
}
