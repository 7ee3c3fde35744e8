//! The command line, declared with clap: `server`, `client`, `compare`
//! and `completions`, each with `--help`, and the values checked as they
//! are parsed (a mistake is an error naming the option, exit 2).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::report::Impairment;
use crate::session::Mode;

#[derive(Debug, Parser)]
#[command(
    name = "enetperf",
    version,
    about = "iperf for ENet: measure reliable, unreliable or unsequenced traffic on stock ENet or enet-rs",
    long_about = "iperf for ENet: measure reliable, unreliable or unsequenced traffic on stock \
ENet or enet-rs, loaded at run time, optionally through the impairing proxy.\n\n\
`compare` runs the same client on stock ENet (Debian's libenet.so.7), then on enet-rs, each \
against a server on the same library, prints them side by side and draws them side by side \
into enetperf-compare.png (or --plot's file).",
    arg_required_else_help = true,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Receive what clients send and report it back to them
    Server(ServerArgs),
    /// Send messages to a server and measure what it received
    Client(ClientArgs),
    /// Run the same client on stock ENet, then on enet-rs, and draw both
    Compare(CompareArgs),
    /// Print a shell completion script to standard output
    Completions {
        /// The shell to complete for
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct ServerArgs {
    /// UDP port to listen on (0: any free port, printed as `PORT p`)
    #[arg(long, default_value_t = 7777, value_name = "P", value_parser = port)]
    pub port: u16,
    /// enet-rs's loss-recovery mode for the server's host
    #[arg(long, value_enum, value_name = "MODE")]
    pub loss_recovery: Option<LossRecovery>,
    /// enet-rs's network conditioner on the server's host, e.g. "loss=2%,lag=20ms" or "preset:mobile" (docs/netsim.md)
    #[arg(long, value_name = "SPEC")]
    pub netsim: Option<String>,
    /// The ENet library: ours (enet-rs), stock (Debian's libenet.so.7) or a path
    #[arg(long, default_value = "ours", value_name = "ours|stock|PATH")]
    pub library: String,
    /// Exit once every client that connected has left
    #[arg(long)]
    pub once: bool,
    /// Print the host's counters at the end as JSON (enet-rs only)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct ClientArgs {
    /// The server's host name or IPv4 address
    pub host: String,
    /// The server's UDP port
    #[arg(long, default_value_t = 7777, value_name = "P", value_parser = port)]
    pub port: u16,
    #[command(flatten)]
    pub traffic: Traffic,
    /// enet-rs's network conditioner on the client's host, e.g. "loss=2%,lag=20ms" or "preset:mobile" (docs/netsim.md)
    #[arg(long, value_name = "SPEC")]
    pub netsim: Option<String>,
    /// The ENet library: ours (enet-rs), stock (Debian's libenet.so.7) or a path
    #[arg(long, default_value = "ours", value_name = "ours|stock|PATH")]
    pub library: String,
    /// Print the report as JSON (schema 1) instead of a table
    #[arg(long)]
    pub json: bool,
    /// Draw the run into this PNG file
    #[arg(long, value_name = "OUT.png", value_parser = png_file)]
    pub plot: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct CompareArgs {
    #[command(flatten)]
    pub traffic: Traffic,
    /// Print both reports as JSON (schema 1, under `runs`) instead of a table
    #[arg(long)]
    pub json: bool,
    /// Draw the runs into this PNG file [default: enetperf-compare.png]
    #[arg(long, value_name = "OUT.png", value_parser = png_file, conflicts_with = "no_plot")]
    pub plot: Option<PathBuf>,
    /// Draw nothing
    #[arg(long)]
    pub no_plot: bool,
}

/// The client's traffic, impairment and measuring options (`client` and
/// `compare` share them).
#[derive(Debug, Clone, Args)]
pub struct Traffic {
    /// How messages travel
    #[arg(long, value_enum, default_value_t = ModeArg::Reliable)]
    pub mode: ModeArg,
    /// Message size in bytes (from 8 a message carries its number, from 16 its send time)
    #[arg(long, default_value_t = 64, value_name = "BYTES", value_parser = size)]
    pub size: usize,
    /// Messages per second, over all peers
    #[arg(long, default_value_t = 1000, value_name = "MSGS_PER_S", value_parser = rate)]
    pub rate: u32,
    /// Peers (connections) the client opens
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = peers)]
    pub peers: usize,
    /// Channels the messages go round
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = channels)]
    pub channels: usize,
    /// Seconds of sending
    #[arg(long, default_value = "10", value_name = "S", value_parser = duration)]
    pub duration: Duration,
    /// Share of datagrams the impairing proxy drops, each way
    #[arg(long, default_value_t = 0.0, value_name = "P", value_parser = probability)]
    pub loss: f64,
    /// Share of datagrams the impairing proxy sends twice, each way
    #[arg(long, default_value_t = 0.0, value_name = "P", value_parser = probability)]
    pub duplicate: f64,
    /// Delay the impairing proxy adds, each way
    #[arg(long, default_value_t = 0, value_name = "MS", value_parser = milliseconds)]
    pub delay_ms: u32,
    /// Random extra delay, up to this, the impairing proxy adds, each way
    #[arg(long, default_value_t = 0, value_name = "MS", value_parser = milliseconds)]
    pub jitter_ms: u32,
    /// The impairing proxy's seed: the same seed drops the same datagrams
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = seed)]
    pub seed: u64,
    /// Seconds between measurements (the live line, the JSON intervals, the plot)
    #[arg(long, default_value = "1", value_name = "S", value_parser = interval)]
    pub interval: Duration,
    /// enet-rs's loss-recovery mode (compare gives it to enet-rs's server and client)
    #[arg(long, value_enum, value_name = "MODE")]
    pub loss_recovery: Option<LossRecovery>,
    /// Do not stamp messages with their send time (no latency or stall figures)
    #[arg(long)]
    pub no_latency: bool,
}

impl Traffic {
    pub fn mode(&self) -> Mode {
        match self.mode {
            ModeArg::Reliable => Mode::Reliable,
            ModeArg::Unreliable => Mode::Unreliable,
            ModeArg::Unsequenced => Mode::Unsequenced,
        }
    }

    pub fn impairment(&self) -> Impairment {
        Impairment {
            loss: self.loss,
            duplicate: self.duplicate,
            delay_ms: self.delay_ms,
            jitter_ms: self.jitter_ms,
        }
    }

    /// The loss-recovery mode's name, if one was asked for.
    pub fn loss_recovery_name(&self) -> Option<String> {
        self.loss_recovery.map(|mode| mode.name().to_string())
    }

    /// The options that make a `client` run this traffic (what `compare`
    /// passes to its clients), without `--loss-recovery`, which `compare`
    /// gives to enet-rs alone.
    pub fn client_args(&self) -> Vec<String> {
        let mut args: Vec<String> = Vec::new();
        let mut pass = |flag: &str, value: String| {
            args.push(flag.to_string());
            args.push(value);
        };
        pass("--mode", self.mode().name().to_string());
        pass("--size", self.size.to_string());
        pass("--rate", self.rate.to_string());
        pass("--peers", self.peers.to_string());
        pass("--channels", self.channels.to_string());
        pass("--duration", self.duration.as_secs_f64().to_string());
        pass("--loss", self.loss.to_string());
        pass("--duplicate", self.duplicate.to_string());
        pass("--delay-ms", self.delay_ms.to_string());
        pass("--jitter-ms", self.jitter_ms.to_string());
        pass("--seed", self.seed.to_string());
        pass("--interval", self.interval.as_secs_f64().to_string());
        if self.no_latency {
            args.push("--no-latency".to_string());
        }
        args
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    Reliable,
    Unreliable,
    Unsequenced,
}

/// enet-rs's loss-recovery modes (see docs/loss-recovery.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LossRecovery {
    Stock,
    Default,
    Fast,
}

impl LossRecovery {
    pub fn name(self) -> &'static str {
        match self {
            LossRecovery::Stock => "stock",
            LossRecovery::Default => "default",
            LossRecovery::Fast => "fast",
        }
    }
}

/// A number of type `T`, or `expected {what}`.
fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, String> {
    text.parse().map_err(|_| format!("expected {what}"))
}

fn port(text: &str) -> Result<u16, String> {
    number(text, "a UDP port (0-65535)")
}

fn size(text: &str) -> Result<usize, String> {
    let size = number(text, "a message size in bytes")?;
    if (1..=32 * 1024 * 1024).contains(&size) {
        Ok(size)
    } else {
        Err("expected 1 byte to 32 MiB".into())
    }
}

fn rate(text: &str) -> Result<u32, String> {
    match number(text, "messages per second")? {
        0 => Err("expected at least 1 message per second".into()),
        rate => Ok(rate),
    }
}

fn peers(text: &str) -> Result<usize, String> {
    let peers = number(text, "a number of peers")?;
    if (1..=4095).contains(&peers) {
        Ok(peers)
    } else {
        Err("expected 1 to 4095".into())
    }
}

fn channels(text: &str) -> Result<usize, String> {
    let channels = number(text, "a number of channels")?;
    if (1..=254).contains(&channels) {
        Ok(channels)
    } else {
        Err("expected 1 to 254".into())
    }
}

/// Seconds from 0.1 to `most`.
fn seconds(text: &str, most: u32) -> Result<Duration, String> {
    let seconds: f64 = number(text, "seconds")?;
    if (0.1..=f64::from(most)).contains(&seconds) {
        Ok(Duration::from_secs_f64(seconds))
    } else {
        Err(format!("expected seconds from 0.1 to {most}"))
    }
}

fn duration(text: &str) -> Result<Duration, String> {
    seconds(text, 86_400)
}

fn interval(text: &str) -> Result<Duration, String> {
    seconds(text, 3600)
}

fn probability(text: &str) -> Result<f64, String> {
    let share: f64 = number(text, "a probability from 0 to 1")?;
    if (0.0..=1.0).contains(&share) {
        Ok(share)
    } else {
        Err("expected a probability from 0 to 1".into())
    }
}

fn milliseconds(text: &str) -> Result<u32, String> {
    number(text, "milliseconds")
}

fn seed(text: &str) -> Result<u64, String> {
    number(text, "a whole number")
}

fn png_file(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    if path.extension().and_then(|e| e.to_str()) == Some("png") {
        Ok(path)
    } else {
        Err("expected a file name ending in .png".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn compare_passes_its_traffic_to_clients_as_parsed() {
        let cli = Cli::try_parse_from([
            "enetperf",
            "compare",
            "--loss",
            "0.05",
            "--delay-ms",
            "20",
            "--duration=2.5",
            "--interval",
            "0.5",
            "--loss-recovery",
            "fast",
        ])
        .unwrap();
        let Command::Compare(compare) = cli.command else {
            panic!("compare");
        };
        let mut args = vec!["enetperf".to_string(), "client".into(), "h".into()];
        args.extend(compare.traffic.client_args());
        let Command::Client(client) = Cli::try_parse_from(args).unwrap().command else {
            panic!("client");
        };
        let (ours, theirs) = (&client.traffic, &compare.traffic);
        assert_eq!(ours.duration, theirs.duration);
        assert_eq!(ours.interval, theirs.interval);
        assert_eq!(ours.impairment(), theirs.impairment());
        assert_eq!(
            ours.loss_recovery, None,
            "compare gives it to enet-rs alone"
        );
    }

    #[test]
    fn a_repeated_option_takes_the_last_value() {
        let cli =
            Cli::try_parse_from(["enetperf", "server", "--port", "1", "--port", "2"]).unwrap();
        let Command::Server(server) = cli.command else {
            panic!("server");
        };
        assert_eq!(server.port, 2);
    }
}
