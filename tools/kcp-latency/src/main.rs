//! `kcp-latency`: one-way latency of fixed-rate reliable messages over KCP,
//! the reference design the ENet loss-recovery benchmark is compared with.
//!
//! ```text
//! kcp-latency server [--seconds S]
//! kcp-latency client --port P [--rate 60] [--seconds 20] [--size 64]
//! ```
//!
//! The server prints `PORT <n>`, takes the first sender of conversation
//! 0x454E4554 as its peer, and on a `DONE` message (or after `--seconds`)
//! prints `latency messages=<n> p50_ms=<f> p99_ms=<f> max_ms=<f> done=<0|1>`.
//! The client sends `--rate` messages a second for `--seconds`, then `DONE`,
//! waits (10 s at most) for everything to be acknowledged and prints
//! `client sent=<n>`.
//!
//! Message layout: `LAT0` (or `DONE`), sequence u32 LE, send time u64 LE in
//! CLOCK_MONOTONIC nanoseconds, zero padding up to `--size`.

use std::io::{self, ErrorKind, Write};
use std::net::{SocketAddr, UdpSocket};
use std::process::ExitCode;
use std::thread;
use std::time::{Duration, Instant};

use kcp::Kcp;

const CONV: u32 = 0x454E_4554;
const MAGIC_DATA: &[u8; 4] = b"LAT0";
const MAGIC_DONE: &[u8; 4] = b"DONE";
const HEADER: usize = 16;
const MAX_SIZE: usize = 65536;
const DRAIN_LIMIT: Duration = Duration::from_secs(10);
/// Idle nap between socket polls. Not a socket read timeout: SO_RCVTIMEO is
/// rounded up to whole kernel ticks (10 ms on a HZ=100 kernel), which would
/// starve `update`; a nap of this size keeps the loop well inside 1 ms.
const IDLE_NAP: Duration = Duration::from_micros(250);

const USAGE: &str = "usage:
  kcp-latency server [--seconds S]                (default S = 120)
  kcp-latency client --port P [--rate R] [--seconds S] [--size N]
                                                  (defaults R = 60, S = 20, N = 64; 16 <= N <= 65536)";

/// CLOCK_MONOTONIC in nanoseconds. `Instant` reads the same clock but hides
/// its value, and the two processes must compare raw readings.
fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec owned by this frame, and
    // CLOCK_MONOTONIC is always supported on Linux, so the call only writes it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_MONOTONIC) failed");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// KCP's output: every buffer KCP flushes becomes one datagram to the peer.
struct UdpOut {
    sock: UdpSocket,
    peer: SocketAddr,
}

impl Write for UdpOut {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // A failed send (full socket buffer, ...) is just another lost
        // datagram to KCP; reporting it would abort KCP's flush half-way.
        let _ = self.sock.send_to(buf, self.peer);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Both ends use KCP's recommended lowest-latency profile ("no-delay" mode).
fn new_kcp(sock: &UdpSocket, peer: SocketAddr, clock: &Clock) -> io::Result<Kcp<UdpOut>> {
    let out = UdpOut {
        sock: sock.try_clone()?,
        peer,
    };
    let mut kcp = Kcp::new(CONV, out);
    kcp.set_nodelay(true, 10, 2, true);
    kcp.set_wndsize(128, 128);
    kcp.set_mtu(1400).map_err(io::Error::from)?;
    // `flush` refuses to run before the first `update`.
    kcp.update(clock.ms()).map_err(io::Error::from)?;
    Ok(kcp)
}

/// Milliseconds since program start: KCP's timebase.
struct Clock(Instant);

impl Clock {
    fn ms(&self) -> u32 {
        self.0.elapsed().as_millis() as u32
    }
}

/// Reads every datagram waiting on the non-blocking socket and hands those
/// from `peer` to KCP. Returns whether any arrived.
fn pump_input(sock: &UdpSocket, peer: SocketAddr, kcp: &mut Kcp<UdpOut>, buf: &mut [u8]) -> bool {
    let mut any = false;
    loop {
        match sock.recv_from(buf) {
            Ok((n, from)) if from == peer => {
                // Malformed or foreign-conversation datagrams are dropped,
                // as a UDP endpoint must.
                let _ = kcp.input(&buf[..n]);
                any = true;
            }
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => return any,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            // e.g. ECONNREFUSED from an ICMP error: the next read goes on.
            Err(_) => return any,
        }
    }
}

/// One turn of the service loop shared by both roles: take input, run KCP's
/// timers, and react to input at once (acks, fast resends) instead of waiting
/// for the next 10 ms internal tick.
fn service(
    sock: &UdpSocket,
    peer: SocketAddr,
    kcp: &mut Kcp<UdpOut>,
    clock: &Clock,
    buf: &mut [u8],
) -> io::Result<bool> {
    let got = pump_input(sock, peer, kcp, buf);
    kcp.update(clock.ms()).map_err(io::Error::from)?;
    if got {
        kcp.flush().map_err(io::Error::from)?;
    }
    Ok(got)
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// Nearest-rank percentile of an ascending slice (0 when empty).
fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn run_server(seconds: f64) -> io::Result<()> {
    let clock = Clock(Instant::now());
    let deadline = Duration::from_secs_f64(seconds);
    let sock = UdpSocket::bind("127.0.0.1:0")?;
    sock.set_nonblocking(true)?;
    let mut stdout = io::stdout();
    writeln!(stdout, "PORT {}", sock.local_addr()?.port())?;
    stdout.flush()?;

    let mut dgram = vec![0u8; 64 * 1024];
    let mut msg = vec![0u8; MAX_SIZE];
    let mut latencies: Vec<u64> = Vec::new();
    let mut done = false;

    // The first datagram of our conversation names the peer.
    let mut session: Option<(SocketAddr, Kcp<UdpOut>)> = None;
    while session.is_none() && clock.0.elapsed() < deadline {
        match sock.recv_from(&mut dgram) {
            Ok((n, from)) if n >= kcp::KCP_OVERHEAD && kcp::get_conv(&dgram[..n]) == CONV => {
                let mut kcp = new_kcp(&sock, from, &clock)?;
                let _ = kcp.input(&dgram[..n]);
                kcp.flush().map_err(io::Error::from)?;
                session = Some((from, kcp));
            }
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => thread::sleep(IDLE_NAP),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => thread::sleep(IDLE_NAP),
        }
    }

    if let Some((peer, kcp)) = session.as_mut() {
        let peer = *peer;
        loop {
            // Drain every complete message KCP has reassembled.
            while let Ok(n) = kcp.recv(&mut msg) {
                let now = monotonic_ns();
                let m = &msg[..n];
                if n >= HEADER && &m[..4] == MAGIC_DATA {
                    let sent = u64::from_le_bytes(m[8..16].try_into().unwrap());
                    latencies.push(now.saturating_sub(sent));
                } else if n >= 4 && &m[..4] == MAGIC_DONE {
                    done = true;
                }
            }
            if done || clock.0.elapsed() >= deadline {
                break;
            }
            if !service(&sock, peer, kcp, &clock, &mut dgram)? {
                thread::sleep(IDLE_NAP);
            }
        }
    }

    latencies.sort_unstable();
    writeln!(
        stdout,
        "latency messages={} p50_ms={:.1} p99_ms={:.1} max_ms={:.1} done={}",
        latencies.len(),
        ms(percentile(&latencies, 50.0)),
        ms(percentile(&latencies, 99.0)),
        ms(latencies.last().copied().unwrap_or(0)),
        u8::from(done)
    )?;
    stdout.flush()?;

    // Our ack of DONE may be lost; keep acking the client's retransmissions
    // for a moment so it can drain instead of waiting out its 10 s limit.
    // Stop at 1 s, or after 300 ms without traffic.
    if let (true, Some((peer, kcp))) = (done, session.as_mut()) {
        let linger = Instant::now();
        let mut last_heard = linger;
        while linger.elapsed() < Duration::from_secs(1)
            && last_heard.elapsed() < Duration::from_millis(300)
        {
            if service(&sock, *peer, kcp, &clock, &mut dgram)? {
                last_heard = Instant::now();
            } else {
                thread::sleep(IDLE_NAP);
            }
        }
    }
    Ok(())
}

fn run_client(port: u16, rate: f64, seconds: f64, size: usize) -> io::Result<()> {
    let clock = Clock(Instant::now());
    let peer = SocketAddr::from(([127, 0, 0, 1], port));
    let sock = UdpSocket::bind("127.0.0.1:0")?;
    sock.set_nonblocking(true)?;
    let mut kcp = new_kcp(&sock, peer, &clock)?;
    let mut dgram = vec![0u8; 64 * 1024];
    let mut msg = vec![0u8; size];

    let total = (rate * seconds).round() as u64;
    let period = Duration::from_secs_f64(1.0 / rate);
    let start = Instant::now();
    let mut sent: u64 = 0;

    // Fixed schedule (message k is due at start + k/rate) so a late turn of
    // the loop does not shift every later message.
    while sent < total {
        let due = start + period.mul_f64(sent as f64);
        if Instant::now() >= due {
            msg[..4].copy_from_slice(MAGIC_DATA);
            msg[4..8].copy_from_slice(&(sent as u32).to_le_bytes());
            msg[8..16].copy_from_slice(&monotonic_ns().to_le_bytes());
            kcp.send(&msg).map_err(io::Error::from)?;
            // Send now rather than at the next 10 ms internal tick.
            kcp.update(clock.ms()).map_err(io::Error::from)?;
            kcp.flush().map_err(io::Error::from)?;
            sent += 1;
            continue;
        }
        if !service(&sock, peer, &mut kcp, &clock, &mut dgram)? {
            thread::sleep(IDLE_NAP.min(due.saturating_duration_since(Instant::now())));
        }
    }

    msg.fill(0);
    msg[..4].copy_from_slice(MAGIC_DONE);
    msg[4..8].copy_from_slice(&(sent as u32).to_le_bytes());
    msg[8..16].copy_from_slice(&monotonic_ns().to_le_bytes());
    kcp.send(&msg).map_err(io::Error::from)?;
    kcp.update(clock.ms()).map_err(io::Error::from)?;
    kcp.flush().map_err(io::Error::from)?;

    // Keep retransmitting until the server has acknowledged everything.
    let drain = Instant::now();
    while kcp.wait_snd() > 0 && drain.elapsed() < DRAIN_LIMIT {
        if !service(&sock, peer, &mut kcp, &clock, &mut dgram)? {
            thread::sleep(IDLE_NAP);
        }
    }
    if kcp.wait_snd() > 0 {
        eprintln!(
            "kcp-latency: {} segment(s) still unacknowledged after {} s",
            kcp.wait_snd(),
            DRAIN_LIMIT.as_secs()
        );
    }
    println!("client sent={sent}");
    Ok(())
}

enum Role {
    Server {
        seconds: f64,
    },
    Client {
        port: u16,
        rate: f64,
        seconds: f64,
        size: usize,
    },
}

fn parse_num<T: std::str::FromStr>(flag: &str, value: Option<String>) -> Result<T, String> {
    let value = value.ok_or_else(|| format!("{flag} needs a value"))?;
    value
        .parse()
        .map_err(|_| format!("bad value for {flag}: {value:?}"))
}

fn positive(flag: &str, v: f64, max: f64) -> Result<f64, String> {
    if v.is_finite() && v > 0.0 && v <= max {
        Ok(v)
    } else {
        Err(format!("{flag} must be > 0 and <= {max}"))
    }
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Role, String> {
    let role = args.next().ok_or("missing role (server or client)")?;
    let (mut port, mut rate, mut size) = (None, 60.0, 64usize);
    let mut seconds = if role == "server" { 120.0 } else { 20.0 };
    let client = match role.as_str() {
        "server" => false,
        "client" => true,
        other => return Err(format!("unknown role {other:?}")),
    };
    while let Some(flag) = args.next() {
        match (flag.as_str(), client) {
            ("--seconds", _) => {
                seconds = positive("--seconds", parse_num(&flag, args.next())?, 86_400.0)?
            }
            ("--port", true) => port = Some(parse_num::<u16>(&flag, args.next())?),
            ("--rate", true) => {
                rate = positive("--rate", parse_num(&flag, args.next())?, 100_000.0)?
            }
            ("--size", true) => size = parse_num(&flag, args.next())?,
            _ => return Err(format!("unknown option {flag:?} for {role}")),
        }
    }
    if !client {
        return Ok(Role::Server { seconds });
    }
    let port = match port {
        Some(p) if p != 0 => p,
        _ => return Err("client needs --port P (1..=65535)".into()),
    };
    if !(HEADER..=MAX_SIZE).contains(&size) {
        return Err(format!("--size must be in {HEADER}..={MAX_SIZE}"));
    }
    Ok(Role::Client {
        port,
        rate,
        seconds,
        size,
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let role = match parse(args.into_iter()) {
        Ok(role) => role,
        Err(msg) => {
            eprintln!("kcp-latency: {msg}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match role {
        Role::Server { seconds } => run_server(seconds),
        Role::Client {
            port,
            rate,
            seconds,
            size,
        } => run_client(port, rate, seconds, size),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kcp-latency: {e}");
            ExitCode::FAILURE
        }
    }
}
