//! `peer-1318`: one side of a two-process interop scenario, as
//! `tests-c/interop/peer.c` is, but running ENet 1.3.18's protocol code:
//! [rusty_enet](https://crates.io/crates/rusty_enet), a Rust port of ENet
//! 1.3.18 with the same wire, is compiled in (no libenet is loaded).
//!
//! Same command line, scenarios, checks, stdout and exit statuses as
//! peer.c, so `tests-c/interop/run_matrix.sh` runs it as one side (see
//! `tests-c/interop/run_1318.sh`) and judges it by the same
//! `expected/*.out` files:
//!
//! ```text
//! peer-1318 --role server|client --scenario NAME [--port N]
//!           [--checksum] [--compress] [--bandwidth BYTES_PER_S]
//!           [--clients N] [--initiator server|client]
//!           [--victim server|client] [--deadline-ms MS] [--batch-ms MS]
//!           [--expect-lib none] [--steady-throttle]
//! ```
//!
//! Every scenario and option of peer.c is expressed; where rusty_enet's
//! API differs from stock's C API the equivalent is explained in `net.rs`
//! (servicing with a wait, the socket buffers, reading packet flags and
//! `connectedPeers`) and in the scenario that needs it (`NO_ALLOCATE` in
//! `basic.rs`, `freeCallback` in `broadcast.rs`). `--expect-lib` takes only
//! `none`: this peer maps no libenet, and checks that.

// One unsafe call (poll(2) in net.rs), documented.
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

#[macro_use]
mod report;
mod basic;
mod broadcast;
mod disconnect;
mod msg;
mod net;
mod timeout;

use std::process;
use std::time::Duration;

/// The command line (peer.c's `struct options`).
pub struct Options {
    pub is_server: bool,
    pub scenario: String,
    pub port: u16,
    pub checksum: bool,
    pub compress: bool,
    /// Incoming and outgoing bandwidth of every host, bytes/s; 0 unlimited.
    pub bandwidth: u32,
    pub clients: usize,
    pub initiator_is_server: bool,
    pub victim_is_server: bool,
    pub deadline_ms: u64,
    pub batch_ms: u64,
    pub steady_throttle: bool,
    pub expect_lib: Option<String>,
}

impl Options {
    fn defaults() -> Options {
        Options {
            is_server: false,
            scenario: String::new(),
            port: 0,
            checksum: false,
            compress: false,
            bandwidth: 0,
            clients: 4,
            initiator_is_server: false,
            victim_is_server: false,
            deadline_ms: 30_000,
            batch_ms: 5,
            steady_throttle: false,
            expect_lib: None,
        }
    }

    #[cfg(test)]
    pub fn for_tests() -> Options {
        Options::defaults()
    }
}

fn usage() -> ! {
    eprint!(
        "usage: peer-1318 --role server|client --scenario NAME [--port N]\n\
         \x20                [--checksum] [--compress] [--bandwidth BYTES_PER_S]\n\
         \x20                [--clients N] [--initiator server|client]\n\
         \x20                [--victim server|client] [--deadline-ms MS] [--batch-ms MS]\n\
         \x20                [--expect-lib none] [--steady-throttle]\n\
         scenarios: basic broadcast disconnect_now disconnect_later timeout\n"
    );
    process::exit(2);
}

fn number(text: &str, low: i64, high: i64) -> i64 {
    match text.parse::<i64>() {
        Ok(value) if (low..=high).contains(&value) => value,
        _ => usage(),
    }
}

fn side(text: &str) -> bool {
    match text {
        "server" => true,
        "client" => false,
        _ => usage(),
    }
}

fn parse_options(args: &[String]) -> Options {
    let mut o = Options::defaults();
    let mut have_role = false;
    let mut have_scenario = false;
    let mut args = args.iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--checksum" => o.checksum = true,
            "--compress" => o.compress = true,
            "--steady-throttle" => o.steady_throttle = true,
            _ => {
                let v = args.next().unwrap_or_else(|| usage());
                match a.as_str() {
                    "--role" => {
                        o.is_server = side(v);
                        have_role = true;
                    }
                    "--scenario" => {
                        o.scenario = v.clone();
                        have_scenario = true;
                    }
                    "--port" => o.port = number(v, 1, 65535) as u16,
                    "--bandwidth" => o.bandwidth = number(v, 0, 0x7FFF_FFFF) as u32,
                    "--clients" => o.clients = number(v, 1, 64) as usize,
                    "--initiator" => o.initiator_is_server = side(v),
                    "--victim" => o.victim_is_server = side(v),
                    "--deadline-ms" => o.deadline_ms = number(v, 100, 600_000) as u64,
                    "--batch-ms" => o.batch_ms = number(v, 0, 1000) as u64,
                    "--expect-lib" => o.expect_lib = Some(v.clone()),
                    _ => usage(),
                }
            }
        }
    }
    if !have_role || !have_scenario || (!o.is_server && o.port == 0) {
        usage();
    }
    o
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = parse_options(&args);
    report::set_role(if o.is_server { "server" } else { "client" });
    report::set_deadline(Duration::from_millis(o.deadline_ms));
    net::check_loaded_library(o.expect_lib.as_deref());
    match o.scenario.as_str() {
        "basic" => basic::run(&o),
        "broadcast" if o.is_server => broadcast::server(&o),
        "broadcast" => broadcast::client(&o),
        "disconnect_now" => disconnect::run(&o, false),
        "disconnect_later" => disconnect::run(&o, true),
        "timeout" => timeout::run(&o),
        _ => usage(),
    }
    say!("OK");
}
