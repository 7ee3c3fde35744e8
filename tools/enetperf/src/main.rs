//! `enetperf`: iperf for ENet.
//!
//! ```text
//! enetperf server [--port P] [--loss-recovery M] [--library L] [--once]
//! enetperf client HOST [--port P] [--mode reliable|unreliable|unsequenced]
//!                 [--size BYTES] [--rate MSGS_PER_S] [--peers N] [--channels N]
//!                 [--duration S] [--loss P] [--duplicate P] [--delay-ms MS]
//!                 [--jitter-ms MS] [--interval S] [--loss-recovery M]
//!                 [--library L] [--json]
//!                 [--plot OUT.png]
//! enetperf compare [client options]     the same run on stock ENet and on enet-rs,
//!                                       drawn into enetperf-compare.png
//! ```
//!
//! `--library` is `ours` (enet-rs, the default), `stock` (Debian's
//! libenet.so.7) or a path; the library is loaded at run time, so the same
//! program measures both. Impairment options put the repo's impairing
//! proxy (`enet-impair`) between client and server, inside the client.

mod library;
mod plot;
mod report;
mod session;

use std::net::{SocketAddr, SocketAddrV4, ToSocketAddrs};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use library::Library;
use report::{Impairment, Summary};
use session::{ClientPlan, Mode};

const USAGE: &str = "usage:
  enetperf server [--port P] [--loss-recovery stock|default|fast]
                  [--library ours|stock|PATH] [--once]
  enetperf client HOST [--port P] [--mode reliable|unreliable|unsequenced] [--size BYTES]
                  [--rate MSGS_PER_S] [--peers N] [--channels N] [--duration S]
                  [--loss P] [--duplicate P] [--delay-ms MS] [--jitter-ms MS]
                  [--interval S] [--loss-recovery stock|default|fast]
                  [--library ours|stock|PATH] [--json] [--plot OUT.png]
  enetperf compare [the client's traffic, impairment, --interval and
                   --loss-recovery options] [--json] [--plot OUT.png | --no-plot]

  compare runs the same client on stock ENet (Debian's libenet.so.7), then on
  enet-rs, each against a server on the same library, prints them side by side
  and draws them side by side into enetperf-compare.png (or --plot's file).
  --loss-recovery picks one of enet-rs's modes (its server and client);
  stock ENet runs as it is.";

/// Where `compare` draws its picture unless `--plot` names a file.
const COMPARE_PLOT: &str = "enetperf-compare.png";

/// A mistake in the command line: printed with the usage, exit 2.
struct Usage(String);

/// Everything the command line can say.
struct Options {
    host: Option<String>,
    port: u16,
    mode: Mode,
    size: usize,
    rate: u32,
    peers: usize,
    channels: usize,
    duration: Duration,
    impairment: Impairment,
    /// How often to measure.
    interval: Duration,
    /// enet-rs's loss-recovery mode.
    loss_recovery: Option<String>,
    library: String,
    json: bool,
    plot: Option<PathBuf>,
    /// `compare --no-plot`: no picture.
    no_plot: bool,
    once: bool,
}

fn parse(args: &[String], command: &str) -> Result<Options, Usage> {
    let mut options = Options {
        host: None,
        port: 7777,
        mode: Mode::Reliable,
        size: 64,
        rate: 1000,
        peers: 1,
        channels: 1,
        duration: Duration::from_secs(10),
        impairment: Impairment::default(),
        interval: Duration::from_secs(1),
        loss_recovery: None,
        library: "ours".into(),
        json: false,
        plot: None,
        no_plot: false,
        once: false,
    };
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let mut value = |what: &str| {
            rest.next()
                .cloned()
                .ok_or_else(|| Usage(format!("{arg} needs {what}")))
        };
        fn number<T: std::str::FromStr>(flag: &str, text: &str, what: &str) -> Result<T, Usage> {
            text.parse()
                .map_err(|_| Usage(format!("{flag}: expected {what}, got {text:?}")))
        }
        fn seconds(flag: &str, text: &str, most: u32) -> Result<Duration, Usage> {
            let seconds: f64 = number(flag, text, "seconds")?;
            if (0.1..=f64::from(most)).contains(&seconds) {
                Ok(Duration::from_secs_f64(seconds))
            } else {
                Err(Usage(format!(
                    "{flag}: expected seconds from 0.1 to {most}"
                )))
            }
        }
        fn share(flag: &str, text: &str) -> Result<f64, Usage> {
            let share: f64 = number(flag, text, "a probability from 0 to 1")?;
            if (0.0..=1.0).contains(&share) {
                Ok(share)
            } else {
                Err(Usage(format!(
                    "{flag}: expected a probability from 0 to 1, got {text}"
                )))
            }
        }
        match arg.as_str() {
            "--port" => options.port = number(arg, &value("a port")?, "a UDP port (0-65535)")?,
            "--mode" => {
                options.mode = match value("a mode")?.as_str() {
                    "reliable" => Mode::Reliable,
                    "unreliable" => Mode::Unreliable,
                    "unsequenced" => Mode::Unsequenced,
                    other => {
                        return Err(Usage(format!(
                            "--mode: expected reliable, unreliable or unsequenced, got {other:?}"
                        )))
                    }
                }
            }
            "--size" => options.size = number(arg, &value("a size")?, "a message size in bytes")?,
            "--rate" => options.rate = number(arg, &value("a rate")?, "messages per second")?,
            "--peers" => options.peers = number(arg, &value("a count")?, "a number of peers")?,
            "--channels" => {
                options.channels = number(arg, &value("a count")?, "a number of channels")?
            }
            "--duration" => options.duration = seconds(arg, &value("seconds")?, 86_400)?,
            "--loss" => options.impairment.loss = share(arg, &value("a probability")?)?,
            "--duplicate" => options.impairment.duplicate = share(arg, &value("a probability")?)?,
            "--delay-ms" => {
                options.impairment.delay_ms = number(arg, &value("ms")?, "milliseconds")?
            }
            "--jitter-ms" => {
                options.impairment.jitter_ms = number(arg, &value("ms")?, "milliseconds")?
            }
            "--interval" => options.interval = seconds(arg, &value("seconds")?, 3600)?,
            "--loss-recovery" => {
                let mode = value("a mode")?;
                if !library::is_loss_recovery_mode(&mode) {
                    return Err(Usage(format!(
                        "--loss-recovery: expected stock, default or fast, got {mode:?}"
                    )));
                }
                options.loss_recovery = Some(mode);
            }
            "--library" if command != "compare" => {
                options.library = value("ours, stock or a path")?
            }
            "--json" if command != "server" => options.json = true,
            "--plot" if command != "server" => {
                let path = PathBuf::from(value("a file name")?);
                if path.extension().and_then(|e| e.to_str()) != Some("png") {
                    return Err(Usage(format!(
                        "--plot: expected a file name ending in .png, got {:?}",
                        path.display().to_string()
                    )));
                }
                options.plot = Some(path);
            }
            "--no-plot" if command == "compare" => options.no_plot = true,
            "--once" if command == "server" => options.once = true,
            flag if flag.starts_with('-') => {
                return Err(Usage(format!(
                    "{flag}: no such option for `enetperf {command}`"
                )))
            }
            host if command == "client" && options.host.is_none() => {
                options.host = Some(host.into())
            }
            other => return Err(Usage(format!("unexpected argument {other:?}"))),
        }
    }
    if options.size == 0 || options.size > 32 * 1024 * 1024 {
        return Err(Usage("--size: expected 1 byte to 32 MiB".into()));
    }
    if options.rate == 0 {
        return Err(Usage(
            "--rate: expected at least 1 message per second".into(),
        ));
    }
    if !(1..=4095).contains(&options.peers) {
        return Err(Usage("--peers: expected 1 to 4095".into()));
    }
    if !(1..=254).contains(&options.channels) {
        return Err(Usage("--channels: expected 1 to 254".into()));
    }
    if options.plot.is_some() && options.no_plot {
        return Err(Usage("--plot and --no-plot: choose one".into()));
    }
    if command == "client" && options.host.is_none() {
        return Err(Usage("client: which server? (enetperf client HOST)".into()));
    }
    Ok(options)
}

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

fn run_server(options: &Options) -> Result<(), String> {
    let library = Library::load(&library_path(&options.library)?)?;
    let stop = Arc::new(AtomicBool::new(false));
    session::serve(
        &library,
        options.port,
        options.once,
        options.loss_recovery.as_deref(),
        || stop.load(Ordering::Relaxed),
    )
}

/// Runs the client; with impairment, through a proxy of its own.
fn run_client(options: &Options, quiet: bool) -> Result<Summary, String> {
    let library = Library::load(&library_path(&options.library)?)?;
    let host = options.host.as_deref().unwrap_or("127.0.0.1");
    let server = resolve(host, options.port)?;
    let i = options.impairment;
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
            1,
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
        mode: options.mode,
        size: options.size,
        rate: options.rate,
        peers: options.peers,
        channels: options.channels,
        duration: options.duration,
        interval: options.interval,
        loss_recovery: options.loss_recovery.clone(),
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
    }
    let result = session::run_client(&library, &plan, |interval| {
        if !quiet {
            eprintln!("{}", interval.line(options.mode.name()));
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

/// `compare`: a server and a client process per library, stock first;
/// each client's JSON report is read back.
fn run_compare(args: &[String]) -> Result<Vec<Summary>, String> {
    let exe = std::env::current_exe().map_err(|error| error.to_string())?;
    // The client gets the traffic options; the parent writes the output.
    // A loss-recovery mode is enet-rs's: its server and client get it.
    let mut passed = Vec::new();
    let mut loss_recovery = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--json" | "--no-plot" => {}
            "--plot" => {
                rest.next();
            }
            "--loss-recovery" => {
                loss_recovery.push(arg.clone());
                loss_recovery.extend(rest.next().cloned());
            }
            _ => passed.push(arg.clone()),
        }
    }
    let mut summaries = Vec::new();
    for library in ["stock", "ours"] {
        let path = library_path(library)?;
        let extensions: &[String] = if library == "ours" {
            &loss_recovery
        } else {
            &[]
        };
        let mut server = Command::new(&exe)
            .args(["server", "--port", "0", "--once", "--library"])
            .arg(&path)
            .args(extensions)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| format!("cannot start the server: {error}"))?;
        let port = read_port(&mut server);
        let output = port.and_then(|port| {
            eprintln!("enetperf compare: {library} ({})", path.display());
            Command::new(&exe)
                .args(["client", "127.0.0.1"])
                .args(&passed)
                .args(["--port", &port.to_string(), "--json", "--library"])
                .arg(&path)
                .args(extensions)
                .stderr(Stdio::inherit())
                .output()
                .map_err(|error| format!("cannot start the client: {error}"))
        });
        let _ = server.kill();
        let _ = server.wait();
        let output = output?;
        if !output.status.success() {
            return Err(format!("the {library} run failed"));
        }
        summaries.push(Summary::from_json(&String::from_utf8_lossy(
            &output.stdout,
        ))?);
    }
    Ok(summaries)
}

/// The `PORT p` line a server prints first.
fn read_port(server: &mut std::process::Child) -> Result<u16, String> {
    use std::io::Read;
    let stdout = server.stdout.as_mut().ok_or("no server output")?;
    let mut line = Vec::new();
    let mut byte = [0u8];
    while stdout.read(&mut byte).map_err(|error| error.to_string())? == 1 && byte[0] != b'\n' {
        line.push(byte[0]);
    }
    String::from_utf8_lossy(&line)
        .strip_prefix("PORT ")
        .and_then(|port| port.trim().parse().ok())
        .ok_or_else(|| "the server did not start".to_string())
}

/// The runs side by side, with enet-rs's ratio to stock.
fn comparison_table(runs: &[Summary]) -> String {
    let width = runs
        .iter()
        .map(|run| run.library_label().len() + 3)
        .max()
        .unwrap_or(0)
        .max(16);
    let mut out = format!("{:<24}", "");
    for run in runs {
        out += &format!("{:>width$}", run.library_label());
    }
    type Show<'a> = &'a dyn Fn(&Summary) -> String;
    let rows: [(&str, Show); 7] = [
        ("delivered msg/s", &|r| format!("{:.0}", r.messages_per_s())),
        ("delivered MB/s", &|r| format!("{:.3}", r.megabytes_per_s())),
        ("delivered / sent", &|r| {
            format!("{:.1} %", r.delivered_percent())
        }),
        ("mean rtt", &|r| format!("{:.1} ms", r.mean_rtt_ms())),
        ("mean loss", &|r| format!("{:.2} %", r.mean_loss_shown())),
        ("retransmissions", &|r| {
            r.retransmissions()
                .map_or("-".to_string(), |n| n.to_string())
        }),
        ("sent", &|r| r.sent.to_string()),
    ];
    for (name, show) in rows {
        out += &format!("\n{name:<24}");
        for run in runs {
            out += &format!("{:>width$}", show(run));
        }
    }
    if let [stock, ours] = runs {
        if stock.messages_per_s() > 0.0 {
            out += &format!(
                "\n\nenet-rs / stock: {:.2}x the delivered messages per second",
                ours.messages_per_s() / stock.messages_per_s()
            );
        }
    }
    out
}

/// `compare --json`: both reports, stock first.
fn comparison_json(runs: &[Summary]) -> String {
    let reports: Vec<String> = runs
        .iter()
        .map(|run| run.json().replace('\n', "\n  "))
        .collect();
    format!(
        "{{\n  \"schema\": 1,\n  \"runs\": [\n  {}\n  ]\n}}",
        reports.join(",\n  ")
    )
}

/// `--plot`: the runs drawn into the PNG it names.
fn draw_if_asked(options: &Options, runs: &[Summary]) -> Result<(), String> {
    let Some(path) = &options.plot else {
        return Ok(());
    };
    plot::draw(path, runs)?;
    eprintln!("enetperf: plot written to {}", path.display());
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first().cloned() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if command == "-h" || command == "--help" {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    if !matches!(command.as_str(), "server" | "client" | "compare") {
        eprintln!("enetperf: unknown command {command:?}\n{USAGE}");
        return ExitCode::from(2);
    }
    let rest = &args[1..];
    let options = match parse(rest, &command) {
        Ok(options) => options,
        Err(Usage(message)) => {
            eprintln!("enetperf: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let outcome = match command.as_str() {
        "server" => run_server(&options),
        "client" => run_client(&options, options.json).and_then(|summary| {
            if options.json {
                println!("{}", summary.json());
            } else {
                println!("{}", summary.table());
            }
            draw_if_asked(&options, &[summary])
        }),
        _ => run_compare(rest).and_then(|runs| {
            if options.json {
                println!("{}", comparison_json(&runs));
            } else {
                println!("{}", comparison_table(&runs));
            }
            // compare always draws, unless told not to.
            let mut options = options;
            if options.plot.is_none() && !options.no_plot {
                options.plot = Some(PathBuf::from(COMPARE_PLOT));
            }
            draw_if_asked(&options, &runs)
        }),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("enetperf: {message}");
            ExitCode::from(1)
        }
    }
}
