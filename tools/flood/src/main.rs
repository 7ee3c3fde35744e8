//! `enet-flood`: a connect-flood generator for tests and benchmarks.
//!
//! Sends well-formed ENet CONNECT datagrams (random connect ids, peer ids
//! and session fields), or with `--kind client-hello` DTLS 1.2
//! ClientHellos (random client randoms, half with forged cookies) for an
//! encrypted host, to a target at a fixed rate for a fixed time, from
//! many source addresses in 127.0.0.0/8 (on Linux every such address is
//! local, so one ordinary UDP socket is bound per source: no raw sockets,
//! no privileges). It never answers what comes back, so every handshake
//! it starts stays half-open on the target; it only counts the
//! HelloVerifyRequests a DTLS target sends back. It stops by itself.
//!
//! ```text
//! enet-flood --target 127.0.0.1:7777 --rate 5000 --duration 10 [--sources 200] [--seed N]
//!            [--kind connect|client-hello]
//! ```

mod client_hello;

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use enet::wire::header::NO_PEER_ID;
use enet::wire::{
    Command, CommandFlags, CommandHeader, ConnectFields, ConnectId, DatagramBuilder, Envelope,
};

/// Rates and durations beyond these are refused: this is a test tool.
const MAX_RATE: u32 = 200_000;
const MAX_DURATION_SECS: f64 = 3_600.0;
const MAX_SOURCES: u32 = 4_096;

struct Options {
    target: SocketAddrV4,
    rate: u32,
    duration: Duration,
    sources: u32,
    seed: u64,
    kind: Kind,
}

/// What the flood sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// ENet CONNECTs, for a plain host.
    Connect,
    /// DTLS ClientHellos, for an encrypted host.
    ClientHello,
}

const USAGE: &str = "usage: enet-flood --target IPV4:PORT --rate PER_SECOND --duration SECONDS \
[--sources N (default 200, at most 4096)] [--seed N] [--kind connect|client-hello]";

fn parse_options(args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut target = None;
    let mut rate = None;
    let mut duration = None;
    let mut sources = 200;
    let mut seed = None;
    let mut kind = Kind::Connect;
    let mut args = args;
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let bad = |what: &str| format!("{flag}: {what}: {value:?}");
        match flag.as_str() {
            "--target" => target = Some(value.parse().map_err(|_| bad("not IPV4:PORT"))?),
            "--rate" => rate = Some(value.parse().map_err(|_| bad("not a count"))?),
            "--duration" => {
                let secs: f64 = value.parse().map_err(|_| bad("not a number"))?;
                if !(secs > 0.0 && secs <= MAX_DURATION_SECS) {
                    return Err(bad("out of range"));
                }
                duration = Some(Duration::from_secs_f64(secs));
            }
            "--sources" => sources = value.parse().map_err(|_| bad("not a count"))?,
            "--seed" => seed = Some(value.parse().map_err(|_| bad("not a number"))?),
            "--kind" => {
                kind = match value.as_str() {
                    "connect" => Kind::Connect,
                    "client-hello" => Kind::ClientHello,
                    _ => return Err(bad("not connect or client-hello")),
                }
            }
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    let rate: u32 = rate.ok_or("--rate is required")?;
    if rate == 0 || rate > MAX_RATE {
        return Err(format!("--rate must be 1..={MAX_RATE}"));
    }
    if sources == 0 || sources > MAX_SOURCES {
        return Err(format!("--sources must be 1..={MAX_SOURCES}"));
    }
    let seed = seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    Ok(Options {
        target: target.ok_or("--target is required")?,
        rate,
        duration: duration.ok_or("--duration is required")?,
        sources,
        seed,
        kind,
    })
}

/// SplitMix64: plenty for random-looking fields.
pub(crate) struct Random(u64);

impl Random {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The i-th source address: 127.64.0.1, 127.64.0.2, ... (clear of
/// 127.0.0.1, which the legit side of a test uses).
fn source_address(index: u32) -> Ipv4Addr {
    let n = index + 1;
    Ipv4Addr::new(127, 64 + (n >> 16) as u8, (n >> 8) as u8, n as u8)
}

/// The CONNECT `enet_host_connect` sends, with these fields.
fn connect_datagram(fields: ConnectFields, data: u32, sent_time: u16) -> Vec<u8> {
    let header = CommandHeader {
        flags: CommandFlags::ACKNOWLEDGE,
        channel_id: 0xFF,
        reliable_sequence_number: 1,
    };
    let mut builder = DatagramBuilder::new(1400);
    if builder
        .push(&header, &Command::Connect { fields, data })
        .is_err()
    {
        return Vec::new(); // cannot happen: a CONNECT is 48 bytes
    }
    builder.finish(Envelope::plain(NO_PEER_ID, 0, sent_time))
}

/// A CONNECT with random ids and session fields, otherwise the defaults
/// of a stock client.
fn random_connect(random: &mut Random) -> Vec<u8> {
    let bits = random.next();
    let session = |value: u64| match value & 7 {
        0..=3 => (value & 3) as u8,
        _ => 0xFF,
    };
    let fields = ConnectFields {
        outgoing_peer_id: (bits & 0x0FFF) as u16,
        incoming_session_id: session(bits >> 12),
        outgoing_session_id: session(bits >> 15),
        mtu: 1400,
        window_size: 65536,
        channel_count: 1 + ((bits >> 18) & 7) as u32,
        incoming_bandwidth: 0,
        outgoing_bandwidth: 0,
        packet_throttle_interval: 5000,
        packet_throttle_acceleration: 2,
        packet_throttle_deceleration: 2,
        connect_id: ConnectId::from_native((bits >> 32) as u32),
    };
    connect_datagram(fields, random.next() as u32, (bits >> 21) as u16)
}

fn run(options: &Options) -> Result<(), String> {
    let sockets = (0..options.sources)
        .map(|index| {
            let address = SocketAddrV4::new(source_address(index), 0);
            UdpSocket::bind(address).map_err(|error| format!("bind {address}: {error}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    for socket in &sockets {
        socket
            .set_nonblocking(true)
            .map_err(|error| format!("non-blocking: {error}"))?;
    }
    let target = SocketAddr::V4(options.target);
    let mut random = Random(options.seed);
    let start = Instant::now();
    let mut sent: u64 = 0;
    let mut errors: u64 = 0;
    let mut next_socket = 0;
    let mut verify_requests: u64 = 0;
    let mut drained = start;
    loop {
        let elapsed = start.elapsed();
        if elapsed >= options.duration {
            break;
        }
        let due = (elapsed.as_secs_f64() * f64::from(options.rate)) as u64;
        while sent + errors < due {
            let datagram = match options.kind {
                Kind::Connect => random_connect(&mut random),
                Kind::ClientHello => client_hello::client_hello(&mut random, sent % 2 == 1),
            };
            match sockets[next_socket].send_to(&datagram, target) {
                Ok(_) => sent += 1,
                Err(_) => errors += 1,
            }
            next_socket = (next_socket + 1) % sockets.len();
        }
        if options.kind == Kind::ClientHello && drained.elapsed() >= Duration::from_millis(50) {
            verify_requests += count_verify_requests(&sockets);
            drained = Instant::now();
        }
        std::thread::sleep(Duration::from_micros(500));
    }
    let secs = start.elapsed().as_secs_f64();
    let what = match options.kind {
        Kind::Connect => "CONNECTs",
        Kind::ClientHello => "ClientHellos",
    };
    println!(
        "enet-flood: {sent} {what} to {target} from {} sources in {secs:.2} s ({:.0}/s), {errors} send errors",
        sockets.len(),
        sent as f64 / secs
    );
    if options.kind == Kind::ClientHello {
        std::thread::sleep(Duration::from_millis(100));
        verify_requests += count_verify_requests(&sockets);
        println!("enet-flood: {verify_requests} HelloVerifyRequests came back");
    }
    Ok(())
}

/// Reads what is waiting on `sockets` and counts the HelloVerifyRequests.
fn count_verify_requests(sockets: &[UdpSocket]) -> u64 {
    let mut buffer = [0u8; 2048];
    let mut count = 0;
    for socket in sockets {
        while let Ok(length) = socket.recv(&mut buffer) {
            count += u64::from(client_hello::is_hello_verify_request(&buffer[..length]));
        }
    }
    count
}

fn main() -> ExitCode {
    let options = match parse_options(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("enet-flood: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("enet-flood: {message}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The CONNECT captured from stock ENet 1.3.17 in
    /// /work/shared/reference/wiretrace-plain.txt, rebuilt from its fields.
    #[test]
    fn builds_the_captured_stock_connect() {
        let fields = ConnectFields {
            outgoing_peer_id: 0,
            incoming_session_id: 0xFF,
            outgoing_session_id: 0xFF,
            mtu: 1400,
            window_size: 65536,
            channel_count: 2,
            incoming_bandwidth: 0,
            outgoing_bandwidth: 0,
            packet_throttle_interval: 5000,
            packet_throttle_acceleration: 2,
            packet_throttle_deceleration: 2,
            connect_id: ConnectId([0xf7, 0xc7, 0x60, 0xdd]),
        };
        assert_eq!(
            hex(&connect_datagram(fields, 0x1234_5678, 0xf707)),
            "8ffff70782ff00010000ffff0000057800010000000000020000000000000000\
             000013880000000200000002f7c760dd12345678"
        );
    }

    #[test]
    fn random_connects_parse_as_connects() {
        let mut random = Random(1);
        for _ in 0..1000 {
            let datagram = random_connect(&mut random);
            let (header, len) =
                enet::wire::DatagramHeader::parse(&datagram, false).expect("header");
            assert_eq!(header.peer_id, NO_PEER_ID);
            let (_, command, _) = Command::parse(&datagram[len..]).expect("command");
            let Command::Connect { fields, .. } = command else {
                panic!("not a CONNECT: {command:?}");
            };
            assert!((1..=8).contains(&fields.channel_count));
            assert!(fields.outgoing_peer_id < 4096);
        }
    }

    #[test]
    fn sources_are_distinct_loopback_addresses_clear_of_127_0_0_1() {
        let all: std::collections::HashSet<_> = (0..MAX_SOURCES).map(source_address).collect();
        assert_eq!(all.len(), MAX_SOURCES as usize);
        assert!(all.iter().all(|a| a.is_loopback() && a.octets()[1] >= 64));
    }

    #[test]
    fn options_are_bounded() {
        let parse = |line: &str| parse_options(line.split(' ').map(String::from));
        assert!(parse("--target 127.0.0.1:9 --rate 10 --duration 1").is_ok());
        assert!(parse("--target 127.0.0.1:9 --rate 0 --duration 1").is_err());
        assert!(parse("--target 127.0.0.1:9 --rate 10 --duration 0").is_err());
        assert!(parse("--target 127.0.0.1:9 --rate 10").is_err());
        assert!(parse("--target 127.0.0.1:9 --rate 10 --duration 1 --sources 0").is_err());
        assert!(parse("--target nowhere --rate 10 --duration 1").is_err());
        assert_eq!(
            parse("--target 127.0.0.1:9 --rate 10 --duration 1 --kind client-hello")
                .unwrap()
                .kind,
            Kind::ClientHello
        );
        assert!(parse("--target 127.0.0.1:9 --rate 10 --duration 1 --kind tls").is_err());
    }
}
