//! enetperf from the outside: friendly errors for bad arguments, an
//! unreachable host and a busy port, and the `--json` output's fields,
//! for stock ENet and for enet-rs. enetperf loads our `libenet.so` from
//! beside itself, so build it first (`cargo build -p enet-rs`, as
//! `scripts/test-all.sh` does).

use std::io::{BufRead, BufReader};
use std::net::UdpSocket;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ENETPERF: &str = env!("CARGO_BIN_EXE_enetperf");

fn run(args: &[&str]) -> (i32, String, String) {
    run_in(&std::env::temp_dir(), args)
}

fn run_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(ENETPERF)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("enetperf runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn bad_arguments_are_explained() {
    for (args, says) in [
        (
            &["client"][..],
            "the following required arguments were not provided:\n  <HOST>",
        ),
        (
            &["client", "127.0.0.1", "--size", "big"],
            "invalid value 'big' for '--size <BYTES>': expected a message size in bytes",
        ),
        (
            &["client", "127.0.0.1", "--size", "0"],
            "invalid value '0' for '--size <BYTES>': expected 1 byte to 32 MiB",
        ),
        (
            &["client", "127.0.0.1", "--rate", "0"],
            "invalid value '0' for '--rate <MSGS_PER_S>': expected at least 1 message per second",
        ),
        (
            &["client", "127.0.0.1", "--peers", "4096"],
            "invalid value '4096' for '--peers <N>': expected 1 to 4095",
        ),
        (
            &["compare", "--channels", "255"],
            "invalid value '255' for '--channels <N>': expected 1 to 254",
        ),
        (
            &["client", "127.0.0.1", "--mode", "fast"],
            "invalid value 'fast' for '--mode <MODE>'\n  [possible values: reliable, unreliable, unsequenced]",
        ),
        (
            &["client", "127.0.0.1", "--loss", "2"],
            "invalid value '2' for '--loss <P>': expected a probability from 0 to 1",
        ),
        (
            &["server", "--port"],
            "a value is required for '--port <P>' but none was supplied",
        ),
        (
            &["server", "--port", "70000"],
            "invalid value '70000' for '--port <P>': expected a UDP port (0-65535)",
        ),
        (&["serve"], "unrecognized subcommand 'serve'"),
        (&["server", "--port", "5", "--bogus"], "unexpected argument '--bogus' found"),
        // The client's traffic options are not the server's.
        (&["server", "--rate", "5"], "unexpected argument '--rate' found"),
        (
            &["client", "127.0.0.1", "--plot", "out.svg"],
            "invalid value 'out.svg' for '--plot <OUT.png>': expected a file name ending in .png",
        ),
        (
            &["compare", "--interval", "0"],
            "invalid value '0' for '--interval <S>': expected seconds from 0.1 to 3600",
        ),
        (
            &["compare", "--library", "stock"],
            "unexpected argument '--library' found",
        ),
        (&["compare", "--once"], "unexpected argument '--once' found"),
        (
            &["server", "--no-latency"],
            "unexpected argument '--no-latency' found",
        ),
        (
            &["server", "--plot", "a.png"],
            "unexpected argument '--plot' found",
        ),
        (
            &["client", "127.0.0.1", "--no-plot"],
            "unexpected argument '--no-plot' found",
        ),
        (
            &["compare", "--plot", "a.png", "--no-plot"],
            "the argument '--plot <OUT.png>' cannot be used with '--no-plot'",
        ),
        (
            &["client", "127.0.0.1", "--duration", "0.0004"],
            "invalid value '0.0004' for '--duration <S>': expected seconds from 0.1 to 86400",
        ),
        (
            &["server", "--loss-recovery", "turbo"],
            "invalid value 'turbo' for '--loss-recovery <MODE>'\n  [possible values: stock, default, fast]",
        ),
        (&["completions", "tcsh"], "invalid value 'tcsh' for '<SHELL>'"),
    ] {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(
            stderr.contains("For more information, try '--help'."),
            "{args:?} points at the help"
        );
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
    }
}

#[test]
fn misspellings_get_a_suggestion() {
    for (args, tip) in [
        (&["serve"][..], "tip: a similar subcommand exists: 'server'"),
        (&["clinet"], "tip: a similar subcommand exists: 'client'"),
        (
            &["client", "127.0.0.1", "--rtae", "5"],
            "tip: a similar argument exists: '--rate'",
        ),
        (
            &["server", "--prot", "5"],
            "tip: a similar argument exists: '--port'",
        ),
        (
            &["compare", "--loss-recovery", "fats"],
            "tip: a similar value exists: 'fast'",
        ),
    ] {
        let (code, _, stderr) = run(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(tip), "{args:?}: {stderr}");
    }
}

#[test]
fn every_command_has_help() {
    // Each command's help names its own options.
    for (args, usage, options) in [
        (
            &["--help"][..],
            "Usage: enetperf <COMMAND>",
            &["server", "client", "compare", "completions"][..],
        ),
        (
            &["-h"],
            "Usage: enetperf <COMMAND>",
            &["server", "client", "compare"],
        ),
        (
            &["help", "client"],
            "Usage: enetperf client [OPTIONS] <HOST>",
            &["--rate", "--plot"],
        ),
        (
            &["server", "--help"],
            "Usage: enetperf server [OPTIONS]",
            &["--port", "--once", "--library", "--loss-recovery"],
        ),
        (
            &["server", "-h"],
            "Usage: enetperf server [OPTIONS]",
            &["--once"],
        ),
        (
            &["client", "--help"],
            "Usage: enetperf client [OPTIONS] <HOST>",
            &[
                "--mode",
                "--size",
                "--rate",
                "--peers",
                "--channels",
                "--duration",
                "--loss",
                "--duplicate",
                "--delay-ms",
                "--jitter-ms",
                "--seed",
                "--interval",
                "--loss-recovery",
                "--library",
                "--json",
                "--plot",
            ],
        ),
        (
            &["client", "-h"],
            "Usage: enetperf client [OPTIONS] <HOST>",
            &["--json"],
        ),
        (
            &["compare", "--help"],
            "Usage: enetperf compare [OPTIONS]",
            &["--rate", "--json", "--plot", "--no-plot"],
        ),
        (
            &["compare", "-h"],
            "Usage: enetperf compare [OPTIONS]",
            &["--no-plot"],
        ),
        (
            &["completions", "--help"],
            "Usage: enetperf completions <SHELL>",
            &["bash", "zsh", "fish"],
        ),
        (
            &["completions", "-h"],
            "Usage: enetperf completions <SHELL>",
            &["bash"],
        ),
    ] {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert!(stdout.contains(usage), "{args:?}: {stdout}");
        for option in options {
            assert!(stdout.contains(option), "{args:?} lists {option}: {stdout}");
        }
    }
    // Options a command does not take are not in its help.
    let (_, server, _) = run(&["server", "--help"]);
    assert!(
        !server.contains("--rate") && !server.contains("--no-latency"),
        "{server}"
    );
    // The server's --json is its counters'.
    assert!(server.contains("--json"), "{server}");
    let (_, compare, _) = run(&["compare", "--help"]);
    assert!(
        !compare.contains("--library") && !compare.contains("--once"),
        "{compare}"
    );
}

#[test]
fn no_command_shows_the_help_and_fails() {
    let (code, _, stderr) = run(&[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("Usage: enetperf <COMMAND>"), "{stderr}");
}

#[test]
fn version_is_printed() {
    for flag in ["--version", "-V"] {
        let (code, stdout, _) = run(&[flag]);
        assert_eq!(code, 0);
        assert_eq!(stdout, format!("enetperf {}\n", env!("CARGO_PKG_VERSION")));
    }
    let (code, stdout, _) = run(&["compare", "--version"]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with("enetperf"), "{stdout}");
}

#[test]
fn completions_are_printed_for_each_shell() {
    let (code, bash, stderr) = run(&["completions", "bash"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(bash.contains("_enetperf()"), "{bash}");
    assert!(bash.contains("complete -F _enetperf"), "{bash}");
    assert!(
        bash.contains("--loss-recovery"),
        "the options are completed"
    );
    for shell in ["zsh", "fish"] {
        let (code, script, _) = run(&["completions", shell]);
        assert_eq!(code, 0);
        assert!(
            script.contains("enetperf") && script.contains("compare"),
            "{script}"
        );
    }
}

#[test]
fn an_unreachable_server_is_reported() {
    // A port nobody answers on: bound here, never read.
    let silent = UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port().to_string();
    let started = Instant::now();
    let (code, _, stderr) = run(&["client", "127.0.0.1", "--port", &port, "--duration", "1"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no answer from 127.0.0.1:"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(15));
}

#[test]
fn a_busy_port_is_reported() {
    let taken = UdpSocket::bind("0.0.0.0:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let (code, _, stderr) = run(&["server", "--port", &port]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(&format!("cannot listen on UDP port {port}")),
        "{stderr}"
    );
}

/// An `enetperf server --once` process, stopped when dropped.
struct Server {
    child: std::process::Child,
    port: String,
    /// Kept open: the server prints to it while it runs.
    _output: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl Server {
    fn start(library: &str) -> Server {
        let mut child = Command::new(ENETPERF)
            .args(["server", "--port", "0", "--once", "--library", library])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut output = BufReader::new(child.stdout.take().unwrap()).lines();
        let port = output
            .next()
            .unwrap()
            .unwrap()
            .strip_prefix("PORT ")
            .unwrap()
            .to_string();
        Server {
            child,
            port,
            _output: output,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server on `library` (`--once`), and a two-second JSON client run.
fn json_run(library: &str, extra: &[&str]) -> String {
    let server = Server::start(library);
    let port = server.port.clone();
    let mut args = vec!["client", "127.0.0.1", "--port", &port, "--library", library];
    args.extend_from_slice(&[
        "--duration",
        "2",
        "--rate",
        "2000",
        "--peers",
        "2",
        "--json",
    ]);
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    stdout
}

fn field<'a>(json: &'a str, name: &str) -> &'a str {
    let key = format!("\n  \"{name}\": ");
    let start = json
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {json}"))
        + key.len();
    let end = json[start..].find([',', '\n']).unwrap() + start;
    &json[start..end]
}

#[test]
fn json_output_has_its_stable_fields() {
    for library in ["stock", "ours"] {
        let json = json_run(library, &[]);
        assert!(json.starts_with("{\n  \"schema\": 1,"), "{json}");
        // Every top-level field, in this order.
        let keys: Vec<&str> = json
            .lines()
            .filter_map(|line| line.strip_prefix("  \""))
            .filter_map(|line| line.split('"').next())
            .collect();
        assert_eq!(
            keys,
            [
                "schema",
                "library",
                "library_path",
                "version",
                "mode",
                "size",
                "rate",
                "peers",
                "channels",
                "duration_s",
                "impairment",
                "sent",
                "delivered",
                "delivered_bytes",
                "messages_per_s",
                "megabytes_per_s",
                "mean_rtt_ms",
                "mean_loss_percent",
                "retransmissions",
                "intervals",
                "loss_recovery",
                "latency_samples",
                "latency_p50_ms",
                "latency_p99_ms",
                "latency_max_ms",
                "longest_stall_ms"
            ]
        );
        assert_eq!(field(&json, "version"), "\"1.3.17\"");
        assert_eq!(field(&json, "mode"), "\"reliable\"");
        let sent: u64 = field(&json, "sent").parse().unwrap();
        let delivered: u64 = field(&json, "delivered").parse().unwrap();
        assert!(sent >= 3000, "{sent} sent");
        assert_eq!(delivered, sent, "reliable messages all arrive on loopback");
        assert_eq!(
            field(&json, "delivered_bytes").parse::<u64>().unwrap(),
            64 * delivered
        );
        // Each interval's fields, in this order.
        let interval = json
            .lines()
            .find(|line| line.starts_with("    {\"seconds\": "))
            .expect("at least one interval");
        let interval_keys: Vec<&str> = interval.split('"').skip(1).step_by(2).collect();
        assert_eq!(
            interval_keys,
            [
                "seconds",
                "messages_per_s",
                "megabytes_per_s",
                "sent",
                "rtt_ms",
                "loss_percent",
                "throttle_percent",
                "retransmissions",
                "sampled_loss_percent",
                "undelivered_percent",
                "latency_p50_ms",
                "latency_p99_ms",
                "latency_max_ms",
                "longest_stall_ms"
            ]
        );
        assert!(json.contains("\n  \"loss_recovery\": null,\n"), "{json}");
        // Every message's latency is measured, and on loopback it is
        // short, with no stall; the figures are in order.
        assert_eq!(
            field(&json, "latency_samples").parse::<u64>().unwrap(),
            delivered
        );
        let ms = |name: &str| -> f64 {
            field(&json, name)
                .parse()
                .unwrap_or_else(|_| panic!("{name} is a number in {json}"))
        };
        let (p50, p99, max) = (
            ms("latency_p50_ms"),
            ms("latency_p99_ms"),
            ms("latency_max_ms"),
        );
        assert!(0.0 < p50 && p50 <= p99 && p99 <= max, "{json}");
        assert!(p50 < 20.0, "{library}: p50 {p50} ms on loopback");
        let stall = ms("longest_stall_ms");
        assert!(
            stall < 150.0,
            "{library}: a {stall} ms stall on a clean link"
        );
        assert!(
            json.trim_end()
                .ends_with(&format!("\n  \"longest_stall_ms\": {stall}\n}}")),
            "{json}"
        );
        // Each interval with messages has its own figures.
        for interval in json.lines().filter(|line| line.starts_with("    {")) {
            assert!(interval.contains("\"latency_p50_ms\": "), "{interval}");
            assert!(
                !interval.contains("\"longest_stall_ms\": null"),
                "{interval}"
            );
        }
        let resent = field(&json, "retransmissions");
        if library == "stock" {
            assert_eq!(field(&json, "library"), "\"stock ENet\"");
            assert_eq!(resent, "null", "stock ENet does not count resends");
        } else {
            assert_eq!(field(&json, "library"), "\"enet-rs\"");
            // A count (on a busy machine even loopback can cost a resend).
            let resent: u64 = resent.parse().expect("enet-rs counts resends");
            assert!(resent < 100, "{resent} resends on loopback");
        }
    }
}

#[test]
fn impairment_goes_through_the_proxy() {
    let json = json_run(
        "ours",
        &["--loss", "0.1", "--delay-ms", "5", "--mode", "unreliable"],
    );
    assert!(
        json.contains(
            "\"impairment\": {\"loss\": 0.1, \"duplicate\": 0, \"delay_ms\": 5, \"jitter_ms\": 0}"
        ),
        "{json}"
    );
    let sent: f64 = field(&json, "sent").parse().unwrap();
    let delivered: f64 = field(&json, "delivered").parse().unwrap();
    // About 10 % of unreliable messages are lost on the way, and each
    // interval sees it.
    assert!(
        delivered < sent * 0.97 && delivered > sent * 0.8,
        "{delivered} of {sent}"
    );
    let undelivered: Vec<f64> = json
        .split("\"undelivered_percent\": ")
        .skip(1)
        .map(|rest| rest.split([',', '}']).next().unwrap().parse().unwrap())
        .collect();
    assert!(!undelivered.is_empty());
    for share in undelivered {
        assert!((3.0..20.0).contains(&share), "{share} % undelivered");
    }
    assert!(field(&json, "mean_rtt_ms").parse::<f64>().unwrap() >= 9.0);
    // Unreliable messages are not waited for: no stall, but a latency of
    // at least the proxy's 5 ms.
    assert_eq!(field(&json, "longest_stall_ms"), "null");
    assert!(json.contains("\"longest_stall_ms\": null}"), "{json}");
    let p50: f64 = field(&json, "latency_p50_ms").parse().unwrap();
    assert!((4.5..50.0).contains(&p50), "p50 {p50} ms");
}

/// Stock ENet resends a lost reliable datagram only when its first
/// timeout runs out (early in a connection, about half a second), and
/// every message behind it waits: the longest stall shows it. With seed
/// 94 and 10 % loss, the proxy drops the client's fifth and sixth
/// datagrams, the first messages after the handshake, and few others, so
/// stock catches up before the run ends (a stall counts once a delivery
/// ends it).
#[test]
fn stock_s_first_timeout_is_a_stall() {
    let json = json_run(
        "stock",
        &[
            "--peers",
            "1",
            "--rate",
            "1000",
            "--loss",
            "0.1",
            "--seed",
            "94",
            "--delay-ms",
            "20",
            "--interval",
            "0.5",
        ],
    );
    let stall: f64 = field(&json, "longest_stall_ms").parse().unwrap();
    assert!(stall >= 300.0, "stock's longest stall: {stall} ms");
    let max: f64 = field(&json, "latency_max_ms").parse().unwrap();
    assert!(max >= stall, "a stalled message waited at least the stall");
}

#[test]
fn no_latency_leaves_messages_unstamped() {
    let json = json_run("ours", &["--no-latency"]);
    assert_eq!(field(&json, "latency_samples"), "0");
    for name in [
        "latency_p50_ms",
        "latency_p99_ms",
        "latency_max_ms",
        "longest_stall_ms",
    ] {
        assert_eq!(field(&json, name), "null", "{name}");
    }
}

/// The pixels of a PNG enetperf drew, as RGB rows.
struct Picture {
    width: usize,
    height: usize,
    rgb: Vec<u8>,
}

impl Picture {
    fn read(path: &std::path::Path) -> Picture {
        let decoder = png::Decoder::new(std::fs::File::open(path).expect("the plot exists"));
        let mut reader = decoder.read_info().expect("a PNG");
        let mut rgb = vec![0; reader.output_buffer_size()];
        let frame = reader.next_frame(&mut rgb).expect("one frame");
        assert_eq!(frame.color_type, png::ColorType::Rgb);
        rgb.truncate(frame.buffer_size());
        Picture {
            width: frame.width as usize,
            height: frame.height as usize,
            rgb,
        }
    }

    /// Pixels of exactly `colour` in the columns `from..to`.
    fn count(&self, colour: [u8; 3], columns: std::ops::Range<usize>) -> usize {
        (0..self.height)
            .flat_map(|y| columns.clone().map(move |x| (y * self.width + x) * 3))
            .filter(|&at| self.rgb[at..at + 3] == colour)
            .count()
    }
}

const STOCK_COLOUR: [u8; 3] = [204, 68, 40];
const OURS_COLOUR: [u8; 3] = [31, 102, 196];

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("enetperf-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn plot_draws_a_run_into_a_png() {
    let path = scratch("client.png");
    let server = Server::start("ours");
    let port = server.port.clone();
    let (code, _, stderr) = run(&[
        "client",
        "127.0.0.1",
        "--port",
        &port,
        "--duration",
        "2",
        "--interval",
        "0.5",
        "--plot",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("plot written to"), "{stderr}");
    let picture = Picture::read(&path);
    assert_eq!((picture.width, picture.height), (720, 1020));
    // Three panels of enet-rs's blue lines and points, nothing in stock's
    // colour.
    let blue = picture.count(OURS_COLOUR, 0..picture.width);
    assert!(blue > 2000, "{blue} blue pixels");
    assert_eq!(picture.count(STOCK_COLOUR, 0..picture.width), 0);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn compare_runs_both_libraries_and_draws_them_side_by_side() {
    // Without --plot, compare draws into enetperf-compare.png.
    let path = scratch("enetperf-compare.png");
    let _ = std::fs::remove_file(&path);
    let (code, stdout, stderr) = run_in(
        path.parent().unwrap(),
        &[
            "compare",
            "--duration",
            "2",
            "--interval",
            "0.5",
            "--rate",
            "1000",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    // Both reports, stock first, each with its own library.
    assert!(
        stdout.starts_with("{\n  \"schema\": 1,\n  \"runs\": ["),
        "{stdout}"
    );
    let stock = stdout
        .find("\"library\": \"stock ENet\"")
        .expect("a stock run");
    let ours = stdout
        .find("\"library\": \"enet-rs\"")
        .expect("an enet-rs run");
    assert!(stock < ours);
    // Each run's top-level counts (indented once more inside "runs").
    let counts = |name: &str| -> Vec<u64> {
        let key = format!("    \"{name}\": ");
        stdout
            .lines()
            .filter_map(|line| line.strip_prefix(key.as_str()))
            .map(|rest| rest.trim_end_matches(',').parse().unwrap())
            .collect()
    };
    let (sent, delivered) = (counts("sent"), counts("delivered"));
    assert_eq!(sent.len(), 2, "{stdout}");
    assert_eq!(sent, delivered, "reliable messages all arrive on loopback");
    assert!(sent.iter().all(|&count| count >= 1500), "{sent:?}");
    // Stock's column on the left, ours on the right.
    let picture = Picture::read(&path);
    assert_eq!((picture.width, picture.height), (1440, 1020));
    let half = picture.width / 2;
    let (left, right) = (0..half, half..picture.width);
    assert!(picture.count(STOCK_COLOUR, left.clone()) > 2000);
    assert!(picture.count(OURS_COLOUR, right.clone()) > 2000);
    assert_eq!(picture.count(STOCK_COLOUR, right), 0);
    assert_eq!(picture.count(OURS_COLOUR, left), 0);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_loss_recovery_mode_is_enet_rs_s_alone() {
    let (code, _, stderr) = run(&[
        "server",
        "--port",
        "0",
        "--library",
        "stock",
        "--loss-recovery",
        "fast",
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("stock ENet has no loss-recovery modes"),
        "{stderr}"
    );
    let json = json_run("ours", &["--loss-recovery", "fast"]);
    assert!(
        json.contains("\n  \"loss_recovery\": \"fast\",\n"),
        "{json}"
    );
    let sent: u64 = field(&json, "sent").parse().unwrap();
    assert_eq!(field(&json, "delivered").parse::<u64>().unwrap(), sent);
}

#[test]
fn netsim_is_enet_rs_s_own_and_impairs_its_host() {
    let (code, _, stderr) = run(&[
        "server",
        "--port",
        "0",
        "--library",
        "stock",
        "--netsim",
        "loss=5%",
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("stock ENet has no network conditioner"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["server", "--port", "0", "--netsim", "loss=lots"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("--netsim \"loss=lots\""), "{stderr}");

    // 10 % of what the client's host sends is lost on its way out.
    let server = Server::start("ours");
    let port = server.port.clone();
    let (code, stdout, stderr) = run(&[
        "client",
        "127.0.0.1",
        "--port",
        &port,
        "--duration",
        "2",
        "--rate",
        "2000",
        "--mode",
        "unreliable",
        "--netsim",
        "out.loss=10%,seed=3",
        "--json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let sent: f64 = field(&stdout, "sent").parse().unwrap();
    let delivered: f64 = field(&stdout, "delivered").parse().unwrap();
    assert!(
        delivered < sent * 0.97 && delivered > sent * 0.8,
        "{delivered} of {sent}"
    );
    assert!(
        stderr.contains("network conditioner, sent: ") && stderr.contains(" dropped"),
        "{stderr}"
    );
}
