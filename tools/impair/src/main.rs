//! `enet-impair`: the impairing proxy as a program.
//!
//! ```text
//! enet-impair --server 127.0.0.1:PORT [--listen 127.0.0.1:0] [--seed N]
//!             [--loss P] [--duplicate P] [--reorder P] [--reorder-delay-ms MS]
//!             [--corrupt P] [--delay-ms MS] [--jitter-ms MS]
//!             [--bandwidth BYTES_PER_S] [--queue-bytes N] [--duration S]
//!             [--pcap FILE]
//! ```
//!
//! `--pcap FILE` records every datagram the proxy receives, as it arrived,
//! between the client's and the server's addresses (for Wireshark; see
//! `tools/wireshark/`).
//!
//! Both directions get the same profile (with different seeds). Prints
//! `PORT <n>` once listening, and the counters of each direction when it
//! stops: after `--duration` seconds (default 600) or on SIGTERM/SIGINT.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use impair::{Counters, Profile, Proxy};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

struct Options {
    listen: SocketAddr,
    server: SocketAddr,
    seed: u64,
    profile: Profile,
    duration: Duration,
    pcap: Option<std::path::PathBuf>,
}

fn parse(args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        server: SocketAddr::from(([127, 0, 0, 1], 0)),
        seed: 1,
        profile: Profile::default(),
        duration: Duration::from_secs(600),
        pcap: None,
    };
    let mut have_server = false;
    let mut args = args;
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let bad = || format!("{flag}: bad value {value:?}");
        let rate = |value: &str| -> Result<f64, String> {
            let rate: f64 = value.parse().map_err(|_| bad())?;
            if (0.0..=1.0).contains(&rate) {
                Ok(rate)
            } else {
                Err(format!("{flag}: a probability in [0, 1]"))
            }
        };
        let p = &mut options.profile;
        match flag.as_str() {
            "--listen" => options.listen = value.parse().map_err(|_| bad())?,
            "--server" => {
                options.server = value.parse().map_err(|_| bad())?;
                have_server = true;
            }
            "--seed" => options.seed = value.parse().map_err(|_| bad())?,
            "--loss" => p.loss = rate(&value)?,
            "--duplicate" => p.duplicate = rate(&value)?,
            "--reorder" => p.reorder = rate(&value)?,
            "--corrupt" => p.corrupt = rate(&value)?,
            "--reorder-delay-ms" => p.reorder_delay_ms = value.parse().map_err(|_| bad())?,
            "--delay-ms" => p.delay_ms = value.parse().map_err(|_| bad())?,
            "--jitter-ms" => p.jitter_ms = value.parse().map_err(|_| bad())?,
            "--pcap" => options.pcap = Some(value.into()),
            "--bandwidth" => p.bandwidth = value.parse().map_err(|_| bad())?,
            "--queue-bytes" => p.queue_bytes = value.parse().map_err(|_| bad())?,
            "--duration" => {
                let secs: f64 = value.parse().map_err(|_| bad())?;
                if !(secs > 0.0 && secs <= 86_400.0) {
                    return Err(bad());
                }
                options.duration = Duration::from_secs_f64(secs);
            }
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    if !have_server {
        return Err("--server is required".into());
    }
    Ok(options)
}

fn line(name: &str, c: &Counters) -> String {
    format!(
        "{name} received={} forwarded={} lost={} duplicated={} reordered={} corrupted={} queue_full={}",
        c.received, c.forwarded, c.lost, c.duplicated, c.reordered, c.corrupted, c.queue_full
    )
}

fn main() -> ExitCode {
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("enet-impair: {message}");
            return ExitCode::from(2);
        }
    };
    // SAFETY: `on_signal` only stores to an atomic, which is
    // async-signal-safe.
    unsafe {
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
    }
    let mut proxy = match Proxy::bind(
        options.listen,
        options.server,
        options.profile,
        options.profile,
        options.seed,
    ) {
        Ok(proxy) => proxy,
        Err(error) => {
            eprintln!("enet-impair: cannot listen on {}: {error}", options.listen);
            return ExitCode::from(2);
        }
    };
    if let Some(path) = &options.pcap {
        match impair::pcap::Capture::create(path) {
            Ok(capture) => proxy.capture_to(capture),
            Err(error) => {
                eprintln!("enet-impair: cannot write {}: {error}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    match proxy.local_addr() {
        Ok(address) => println!("PORT {}", address.port()),
        Err(error) => {
            eprintln!("enet-impair: {error}");
            return ExitCode::from(2);
        }
    }
    let result = proxy.run(Instant::now() + options.duration, &STOP);
    let [up, down] = proxy.counters();
    println!("{}", line("up", &up));
    println!("{}", line("down", &down));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("enet-impair: {error}");
            ExitCode::from(1)
        }
    }
}
