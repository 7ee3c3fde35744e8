//! `enetperf`: iperf for ENet.
//!
//! ```text
//! enetperf server [--port P] [--loss-recovery M] [--netsim SPEC] [--library L] [--once]
//!                 [--json]
//! enetperf client HOST [--port P] [traffic, impairment and measuring options]
//!                 [--netsim SPEC] [--library L] [--json] [--plot OUT.png]
//! enetperf compare [traffic, impairment and measuring options]
//!                  [--json] [--plot OUT.png | --no-plot]
//! enetperf completions bash|zsh|fish|elvish|powershell
//! ```
//!
//! `enetperf help` and `--help` on every command list the options (see
//! [`cli`]). `--library` is `ours` (enet-rs, the default), `stock`
//! (Debian's libenet.so.7) or a path; the library is loaded at run time,
//! so the same program measures both. Impairment options put the repo's
//! impairing proxy (`enet-impair`) between client and server, inside the
//! client; `--netsim SPEC` instead gives enet-rs's own host its built-in
//! network conditioner (docs/netsim.md).

mod cli;
mod compare;
mod counters;
mod latency;
mod library;
mod plot;
mod report;
mod session;

use std::net::{SocketAddr, SocketAddrV4, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{CommandFactory, Parser};

use cli::{Cli, ClientArgs, Command, ServerArgs};
use library::Library;
use report::{Impairment, Summary};
use session::ClientPlan;

/// The library `--library` names.
fn library_path(choice: &str) -> Result<PathBuf, String> {
    match choice {
        "stock" => Ok(PathBuf::from(library::STOCK)),
        "ours" => ours_library().ok_or_else(|| {
            "cannot find enet-rs's libenet.so: build it (cargo build --release) or pass --library PATH"
                .to_string()
        }),
        path => Ok(PathBuf::from(path)),
    }
}

/// enet-rs's library: beside this program (Cargo's target/<profile>/),
/// in ../lib (CMake's build directory and an installed prefix), or CMake's
/// build directory seen from Cargo's.
fn ours_library() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    let candidates = [
        dir.join("libenet.so"),
        dir.join("../lib/libenet.so.7"),
        dir.join("../lib/x86_64-linux-gnu/libenet.so.7"),
        dir.join("../release/libenet.so"),
        dir.join("../../build/lib/libenet.so.7"),
    ];
    candidates.into_iter().find(|path| path.exists())
}

fn resolve(host: &str, port: u16) -> Result<SocketAddrV4, String> {
    let found = (host, port)
        .to_socket_addrs()
        .map_err(|_| format!("cannot resolve {host:?}"))?;
    found
        .filter_map(|address| match address {
            SocketAddr::V4(v4) => Some(v4),
            SocketAddr::V6(_) => None,
        })
        .next()
        .ok_or_else(|| format!("{host} has no IPv4 address (ENet 1.3.17's API is IPv4)"))
}

fn run_server(options: &ServerArgs) -> Result<(), String> {
    let library = Library::load(&library_path(&options.library)?)?;
    let stop = Arc::new(AtomicBool::new(false));
    session::serve(
        &library,
        options.port,
        options.once,
        options.loss_recovery.map(|mode| mode.name()),
        options.netsim.as_deref(),
        options.json,
        || stop.load(Ordering::Relaxed) || interrupted::happened(),
    )
}

/// Ctrl-C or SIGTERM ends the server the way `--once` does, so that it
/// prints its counters.
mod interrupted {
    use std::sync::atomic::{AtomicBool, Ordering};

    static HAPPENED: AtomicBool = AtomicBool::new(false);

    extern "C" fn on_signal(_: libc::c_int) {
        HAPPENED.store(true, Ordering::Relaxed);
    }

    /// Whether the server was asked to stop; the first call installs the
    /// handlers.
    pub fn happened() -> bool {
        static INSTALLED: std::sync::Once = std::sync::Once::new();
        INSTALLED.call_once(|| {
            let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // SAFETY: the handler only stores to an atomic, which is
            // async-signal-safe.
            unsafe {
                libc::signal(libc::SIGINT, handler);
                libc::signal(libc::SIGTERM, handler);
            }
        });
        HAPPENED.load(Ordering::Relaxed)
    }
}

/// Runs the client; with impairment, through a proxy of its own.
fn run_client(options: &ClientArgs, quiet: bool) -> Result<Summary, String> {
    let library = Library::load(&library_path(&options.library)?)?;
    let server = resolve(&options.host, options.port)?;
    let traffic = &options.traffic;
    let i = traffic.impairment();
    let impaired = i != Impairment::default();
    let stop = Arc::new(AtomicBool::new(false));
    let mut proxy_thread = None;
    let target = if impaired {
        let profile = impair::Profile {
            loss: i.loss,
            duplicate: i.duplicate,
            delay_ms: i.delay_ms,
            jitter_ms: i.jitter_ms,
            ..impair::Profile::default()
        };
        let mut proxy = impair::Proxy::bind(
            SocketAddr::from(([127, 0, 0, 1], 0)),
            SocketAddr::V4(server),
            profile,
            profile,
            traffic.seed,
        )
        .map_err(|error| format!("cannot start the impairing proxy: {error}"))?;
        let port = proxy
            .local_addr()
            .map_err(|error| error.to_string())?
            .port();
        let stop = Arc::clone(&stop);
        proxy_thread = Some(std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(86_400);
            let _ = proxy.run(deadline, &stop);
        }));
        SocketAddrV4::new([127, 0, 0, 1].into(), port)
    } else {
        server
    };
    let plan = ClientPlan {
        server: target,
        mode: traffic.mode(),
        size: traffic.size,
        rate: traffic.rate,
        peers: traffic.peers,
        channels: traffic.channels,
        duration: traffic.duration,
        interval: traffic.interval,
        loss_recovery: traffic.loss_recovery_name(),
        netsim: options.netsim.clone(),
        latency: !traffic.no_latency,
    };
    if !quiet {
        eprintln!(
            "enetperf client: {} {} -> {server}{}",
            library.name(),
            library.version(),
            if impaired {
                " through the impairing proxy"
            } else {
                ""
            }
        );
        if let Some(spec) = &options.netsim {
            eprintln!("enetperf client: network conditioner {spec:?} on the client's host");
        }
    }
    let result = session::run_client(&library, &plan, |interval| {
        if !quiet {
            eprintln!("{}", interval.line(plan.mode.name()));
        }
    });
    stop.store(true, Ordering::Relaxed);
    if let Some(thread) = proxy_thread {
        let _ = thread.join();
    }
    let mut summary = result?;
    summary.impairment = i;
    Ok(summary)
}

/// Draws `runs` into the PNG at `path`, and says so.
fn draw(path: &Path, runs: &[Summary]) -> Result<(), String> {
    plot::draw(path, runs)?;
    eprintln!("enetperf: plot written to {}", path.display());
    Ok(())
}

fn main() -> ExitCode {
    // Mistakes in the command line exit 2 with clap's message; --help and
    // --version exit 0.
    let cli = Cli::parse();
    let outcome = match &cli.command {
        Command::Server(options) => run_server(options),
        Command::Client(options) => run_client(options, options.json).and_then(|summary| {
            if options.json {
                println!("{}", summary.json());
            } else {
                println!("{}", summary.table());
            }
            match &options.plot {
                Some(path) => draw(path, &[summary]),
                None => Ok(()),
            }
        }),
        Command::Compare(options) => compare::run(options),
        Command::Completions { shell } => {
            clap_complete::generate(
                *shell,
                &mut Cli::command(),
                "enetperf",
                &mut std::io::stdout(),
            );
            Ok(())
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("enetperf: {message}");
            ExitCode::from(1)
        }
    }
}
