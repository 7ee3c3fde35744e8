//! The library's runtime switches: every `ENET_RS_*` environment variable
//! it reads is named here, parsed here with one grammar, and only here is
//! the environment read (`tests/engine/module_layers.rs` checks that no
//! other module of `src` does).
//!
//! A host's switches ([`Switches`]) are parsed at the one moment the host
//! is built and handed to it as plain values; nothing is cached, so a
//! program (or a test) that changes a variable between two hosts gets the
//! new value for the second one. The packet pool's switches
//! ([`ProcessSwitches`]) are process-wide and parsed once, at the first
//! packet: `mem` does not name this module, so the host builder
//! (`endpoint`) hands the pool a reader that parses them here.
//!
//! The grammar, for every switch: the value is trimmed and keywords are
//! case-insensitive; a boolean is `on`/`1` or `off`/`0`; a size is a
//! decimal number of bytes; an empty value counts as unset. A value that
//! does not parse is reported as one line on stderr naming the switch and
//! the value, and the switch keeps its default.

use core::fmt;

use netsim::Spec;

/// One environment variable the library reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Switch {
    /// The variable's name, as a program sets it.
    pub name: &'static str,
}

/// `off` or `0` turns UDP offload off (segmented sends, coalesced
/// receives), for each host built after.
pub const UDP_OFFLOAD: Switch = Switch {
    name: named_text!(b"ENET_RS_UDP_OFFLOAD"),
};

/// A network conditioner's spec (the `netsim` crate's grammar) every new
/// host gets.
pub const NETSIM: Switch = Switch {
    name: named_text!(b"ENET_RS_NETSIM"),
};

/// The host-wide reassembly budget in bytes of each new host.
pub const REASSEMBLY_BUDGET: Switch = Switch {
    name: named_text!(b"ENET_RS_REASSEMBLY_BUDGET"),
};

/// `on` or `1` makes `enet_host_create` bind the any-address dual-stack.
pub const DUAL_STACK: Switch = Switch {
    name: named_text!(b"ENET_RS_DUAL_STACK"),
};

/// The loss recovery of new hosts, `stock`, `default` or `fast`.
pub const LOSS_RECOVERY: Switch = Switch {
    name: named_text!(b"ENET_RS_LOSS_RECOVERY"),
};

/// `off` or `0` keeps the packet pool off, for the whole process (read
/// once, at the first packet).
pub const PACKET_POOL: Switch = Switch {
    name: named_text!(b"ENET_RS_PACKET_POOL"),
};

/// Not ours: the dynamic loader's preload list, where valgrind's heap
/// tools show, read once with [`PACKET_POOL`]. It has no grammar of ours:
/// its text is handed on as it is.
pub const LD_PRELOAD: Switch = Switch {
    name: named_text!(b"LD_PRELOAD"),
};

/// A loss recovery preset a switch can name (the engine's settings of
/// the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossRecoveryPreset {
    Stock,
    Default,
    Fast,
}

/// Every switch a host is built with, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Switches {
    /// [`UDP_OFFLOAD`]: whether segmented sends and coalesced receives are
    /// allowed where the system has them (default on).
    pub udp_offload: bool,
    /// [`NETSIM`]: the conditioner the host starts with (default none).
    pub netsim: Option<Spec>,
    /// [`REASSEMBLY_BUDGET`]: a fixed reassembly limit in bytes (default
    /// none: the engine's own limit).
    pub reassembly_budget: Option<usize>,
    /// [`DUAL_STACK`]: whether `enet_host_create` binds `[::]` dual-stack
    /// where it would bind the IPv4 any-address (default off).
    pub dual_stack: bool,
    /// [`LOSS_RECOVERY`]: the host's loss recovery (default none: the
    /// engine's default).
    pub loss_recovery: Option<LossRecoveryPreset>,
}

impl Default for Switches {
    /// Every switch unset.
    fn default() -> Self {
        Switches {
            udp_offload: true,
            netsim: None,
            reassembly_budget: None,
            dual_stack: false,
            loss_recovery: None,
        }
    }
}

/// A switch whose value does not parse: the switch, the value, and what
/// was expected. Its `Display` is the one line reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    pub switch: Switch,
    pub value: String,
    /// What the value should have been, and why it is not.
    pub expected: String,
    /// The default used instead.
    pub default: &'static str,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "enet-rs: {}={:?} is not {}; using the default ({})",
            self.switch.name, self.value, self.expected, self.default
        )
    }
}

/// Reads one variable of the real environment. A value that is not
/// valid Unicode is kept, lossily, so that it is reported as malformed.
fn environment(name: &str) -> Option<String> {
    let value = std::env::var_os(name)?;
    Some(
        value
            .into_string()
            .unwrap_or_else(|value| value.to_string_lossy().into_owned()),
    )
}

/// Reports each malformed switch on stderr, one line each.
fn report(malformed: &[Malformed]) {
    for each in malformed {
        eprintln!("{each}");
    }
}

/// The switches' values, each parsed by the one grammar, with what did
/// not parse collected.
struct Parser<F> {
    lookup: F,
    malformed: Vec<Malformed>,
}

impl<F: Fn(&str) -> Option<String>> Parser<F> {
    /// The switch's trimmed value; `None` when it is unset or empty.
    fn text(&self, switch: Switch) -> Option<(String, String)> {
        let raw = (self.lookup)(switch.name)?;
        let trimmed = raw.trim();
        (!trimmed.is_empty()).then(|| (trimmed.to_string(), raw.clone()))
    }

    /// A value that does not parse: noted, and the default is used.
    fn refuse<T>(
        &mut self,
        switch: Switch,
        raw: String,
        expected: impl Into<String>,
        default: &'static str,
    ) -> Option<T> {
        self.malformed.push(Malformed {
            switch,
            value: raw,
            expected: expected.into(),
            default,
        });
        None
    }

    fn boolean(&mut self, switch: Switch, default: bool) -> bool {
        let Some((text, raw)) = self.text(switch) else {
            return default;
        };
        let value = match text.to_ascii_lowercase().as_str() {
            "on" | "1" => Some(true),
            "off" | "0" => Some(false),
            _ => self.refuse(
                switch,
                raw,
                "on, off, 1 or 0",
                if default { "on" } else { "off" },
            ),
        };
        value.unwrap_or(default)
    }

    fn size(&mut self, switch: Switch, default: &'static str) -> Option<usize> {
        let (text, raw) = self.text(switch)?;
        match text.parse() {
            Ok(size) => Some(size),
            Err(_) => self.refuse(switch, raw, "a number of bytes", default),
        }
    }

    fn keyword<T: Copy>(
        &mut self,
        switch: Switch,
        keywords: &[(&str, T)],
        default: &'static str,
    ) -> Option<T> {
        let (text, raw) = self.text(switch)?;
        let text = text.to_ascii_lowercase();
        if let Some((_, value)) = keywords.iter().find(|(keyword, _)| *keyword == text) {
            return Some(*value);
        }
        let names: Vec<&str> = keywords.iter().map(|(keyword, _)| *keyword).collect();
        let expected = match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::from("anything"),
        };
        self.refuse(switch, raw, expected, default)
    }

    fn netsim(&mut self, switch: Switch) -> Option<Spec> {
        let (text, raw) = self.text(switch)?;
        match netsim::spec::parse(&text) {
            Ok(spec) => spec,
            Err(error) => self.refuse(
                switch,
                raw,
                format!("a conditioner spec ({error})"),
                "no conditioner",
            ),
        }
    }
}

impl Switches {
    /// The switches as the environment sets them now; each malformed one
    /// is reported on stderr and keeps its default.
    pub fn from_env() -> Switches {
        let (switches, malformed) = Switches::parse(environment);
        report(&malformed);
        switches
    }

    /// The switches as `lookup` gives their values (a variable's name to
    /// its value, `None` when unset), and those that did not parse.
    pub fn parse(lookup: impl Fn(&str) -> Option<String>) -> (Switches, Vec<Malformed>) {
        let mut parser = Parser {
            lookup,
            malformed: Vec::new(),
        };
        let switches = Switches {
            udp_offload: parser.boolean(UDP_OFFLOAD, true),
            netsim: parser.netsim(NETSIM),
            reassembly_budget: parser.size(REASSEMBLY_BUDGET, "the engine's limit"),
            dual_stack: parser.boolean(DUAL_STACK, false),
            loss_recovery: parser.keyword(
                LOSS_RECOVERY,
                &[
                    ("stock", LossRecoveryPreset::Stock),
                    ("default", LossRecoveryPreset::Default),
                    ("fast", LossRecoveryPreset::Fast),
                ],
                "default",
            ),
        };
        (switches, parser.malformed)
    }
}

/// The process-wide switches the memory layer decides its packet pool by
/// (handed to it as plain values by `endpoint`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessSwitches {
    /// [`PACKET_POOL`]: whether the packet pool may be used (default on).
    pub packet_pool: bool,
    /// [`LD_PRELOAD`]'s text, if set.
    pub preload: Option<String>,
}

impl ProcessSwitches {
    /// The process-wide switches as the environment sets them now; a
    /// malformed one is reported on stderr and keeps its default.
    pub fn from_env() -> ProcessSwitches {
        let (switches, malformed) = ProcessSwitches::parse(environment);
        report(&malformed);
        switches
    }

    /// As [`Switches::parse`], for the process-wide switches.
    pub fn parse(lookup: impl Fn(&str) -> Option<String>) -> (ProcessSwitches, Vec<Malformed>) {
        let preload = lookup(LD_PRELOAD.name);
        let mut parser = Parser {
            lookup,
            malformed: Vec::new(),
        };
        let switches = ProcessSwitches {
            packet_pool: parser.boolean(PACKET_POOL, true),
            preload,
        };
        (switches, parser.malformed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A lookup over `pairs`, standing in for the environment.
    fn parse(pairs: &[(&str, &str)]) -> (Switches, Vec<Malformed>) {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect();
        Switches::parse(|name| map.get(name).cloned())
    }

    #[test]
    fn unset_and_empty_switches_keep_their_defaults_silently() {
        assert_eq!(parse(&[]), (Switches::default(), Vec::new()));
        let blank = [
            ("ENET_RS_UDP_OFFLOAD", ""),
            ("ENET_RS_NETSIM", "  "),
            ("ENET_RS_REASSEMBLY_BUDGET", ""),
            ("ENET_RS_DUAL_STACK", "\t"),
            ("ENET_RS_LOSS_RECOVERY", " "),
        ];
        assert_eq!(parse(&blank), (Switches::default(), Vec::new()));
    }

    #[test]
    fn booleans_are_on_off_1_or_0_trimmed_in_any_case() {
        for (text, value) in [
            ("on", true),
            (" ON ", true),
            ("1", true),
            ("off", false),
            ("Off\n", false),
            (" 0", false),
        ] {
            let (switches, malformed) =
                parse(&[("ENET_RS_UDP_OFFLOAD", text), ("ENET_RS_DUAL_STACK", text)]);
            assert!(malformed.is_empty(), "{text:?}: {malformed:?}");
            assert_eq!(switches.udp_offload, value, "{text:?}");
            assert_eq!(switches.dual_stack, value, "{text:?}");
        }
    }

    #[test]
    fn sizes_and_keywords_are_trimmed_and_keywords_in_any_case() {
        let (switches, malformed) = parse(&[
            ("ENET_RS_REASSEMBLY_BUDGET", " 65536\n"),
            ("ENET_RS_LOSS_RECOVERY", " Fast "),
        ]);
        assert!(malformed.is_empty());
        assert_eq!(switches.reassembly_budget, Some(65536));
        assert_eq!(switches.loss_recovery, Some(LossRecoveryPreset::Fast));
        for (text, preset) in [
            ("stock", LossRecoveryPreset::Stock),
            ("DEFAULT", LossRecoveryPreset::Default),
        ] {
            let (switches, _) = parse(&[("ENET_RS_LOSS_RECOVERY", text)]);
            assert_eq!(switches.loss_recovery, Some(preset));
        }
    }

    #[test]
    fn a_netsim_spec_is_parsed_and_an_empty_one_is_none() {
        let (switches, malformed) = parse(&[("ENET_RS_NETSIM", " lag=20ms,seed=1 ")]);
        assert!(malformed.is_empty());
        let spec = switches.netsim.expect("a spec");
        assert_eq!(spec.seed, Some(1));
        assert_eq!(
            spec,
            netsim::spec::parse("lag=20ms,seed=1").unwrap().unwrap()
        );
        let (switches, malformed) = parse(&[("ENET_RS_NETSIM", ",")]);
        assert!(malformed.is_empty());
        assert_eq!(switches.netsim, None);
    }

    #[test]
    fn each_malformed_switch_is_one_line_naming_it_and_its_value_and_keeps_the_default() {
        let (switches, malformed) = parse(&[
            ("ENET_RS_UDP_OFFLOAD", "maybe"),
            ("ENET_RS_NETSIM", "lag=-3"),
            ("ENET_RS_REASSEMBLY_BUDGET", "64k"),
            ("ENET_RS_DUAL_STACK", "yes"),
            ("ENET_RS_LOSS_RECOVERY", "quick"),
        ]);
        assert_eq!(switches, Switches::default());
        let lines: Vec<String> = malformed.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "enet-rs: ENET_RS_UDP_OFFLOAD=\"maybe\" is not on, off, 1 or 0; using the default (on)",
                &format!(
                    "enet-rs: ENET_RS_NETSIM=\"lag=-3\" is not a conditioner spec ({}); using the default (no conditioner)",
                    netsim::spec::parse("lag=-3").unwrap_err()
                ),
                "enet-rs: ENET_RS_REASSEMBLY_BUDGET=\"64k\" is not a number of bytes; using the default (the engine's limit)",
                "enet-rs: ENET_RS_DUAL_STACK=\"yes\" is not on, off, 1 or 0; using the default (off)",
                "enet-rs: ENET_RS_LOSS_RECOVERY=\"quick\" is not stock, default or fast; using the default (default)",
            ]
        );
        assert!(lines.iter().all(|line| !line.contains('\n')));
    }

    #[test]
    fn a_malformed_switch_leaves_the_others_as_set() {
        let (switches, malformed) = parse(&[
            ("ENET_RS_REASSEMBLY_BUDGET", "-1"),
            ("ENET_RS_LOSS_RECOVERY", "stock"),
        ]);
        assert_eq!(malformed.len(), 1);
        assert_eq!(malformed[0].switch, REASSEMBLY_BUDGET);
        assert_eq!(malformed[0].value, "-1");
        assert_eq!(switches.reassembly_budget, None);
        assert_eq!(switches.loss_recovery, Some(LossRecoveryPreset::Stock));
    }

    #[test]
    fn the_process_switches_take_the_same_grammar() {
        let lookup = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| value.to_string())
            }
        };
        let (switches, malformed) = ProcessSwitches::parse(lookup(&[]));
        assert!(switches.packet_pool && switches.preload.is_none() && malformed.is_empty());
        let (switches, malformed) = ProcessSwitches::parse(lookup(&[
            ("ENET_RS_PACKET_POOL", " OFF "),
            ("LD_PRELOAD", "a.so:b.so"),
        ]));
        assert!(!switches.packet_pool && malformed.is_empty());
        assert_eq!(switches.preload.as_deref(), Some("a.so:b.so"));
        let (switches, malformed) =
            ProcessSwitches::parse(lookup(&[("ENET_RS_PACKET_POOL", "no")]));
        assert!(switches.packet_pool);
        assert_eq!(
            malformed[0].to_string(),
            "enet-rs: ENET_RS_PACKET_POOL=\"no\" is not on, off, 1 or 0; using the default (on)"
        );
    }
}
