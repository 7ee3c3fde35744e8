//! The library's runtime switches: every `ENET_RS_*` environment variable
//! it reads is named here, and only here is the environment read
//! (`tests/engine/module_layers.rs` checks that no other module of `src` does).
//!
//! A switch hands its owner the raw text; what the text means, and when
//! to read it, stays with the owner. Nothing is cached: each read sees the
//! environment as it is then, so a program (or a test) that changes a
//! variable between two hosts gets the new value for the second one.

/// One environment variable the library reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Switch {
    /// The variable's name, as a program sets it.
    pub name: &'static str,
}

impl Switch {
    /// The variable's value now; `None` when it is unset or not valid
    /// Unicode (both leave the owner's default).
    pub fn read(self) -> Option<String> {
        std::env::var(self.name).ok()
    }
}

/// `off` or `0` turns UDP offload off (`net::batch`), read each time a
/// host's socket I/O is made.
pub const UDP_OFFLOAD: Switch = Switch {
    name: "ENET_RS_UDP_OFFLOAD",
};

/// A network conditioner's spec (`net::netsim`), read each time a host's
/// socket I/O is made.
pub const NETSIM: Switch = Switch {
    name: "ENET_RS_NETSIM",
};

/// The host-wide reassembly budget in bytes (`ffi::driver`), read each
/// time a host is made.
pub const REASSEMBLY_BUDGET: Switch = Switch {
    name: "ENET_RS_REASSEMBLY_BUDGET",
};

/// `1` makes `enet_host_create` bind the any-address dual-stack
/// (`ffi::enet_rs_net`), read at each call.
pub const DUAL_STACK: Switch = Switch {
    name: "ENET_RS_DUAL_STACK",
};

/// `off` or `0` keeps the packet pool off (`mem::pool`), read once, at
/// the first packet.
pub const PACKET_POOL: Switch = Switch {
    name: "ENET_RS_PACKET_POOL",
};

/// Not ours: the dynamic loader's preload list, where valgrind's heap
/// tools show (`mem::checker`), read once with [`PACKET_POOL`].
pub const LD_PRELOAD: Switch = Switch { name: "LD_PRELOAD" };

/// The loss recovery of new hosts, `stock`, `default` or `fast`
/// (`ffi::driver`), read each time a host is made.
pub const LOSS_RECOVERY: Switch = Switch {
    name: "ENET_RS_LOSS_RECOVERY",
};
