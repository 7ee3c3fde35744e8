//! The driver's host behind every `ENetHost *` the library hands out, the
//! way back to it from the pointers C code holds (a host, or one of its
//! peers), and making one on a bound socket. Every other `ffi` module
//! finds its host through here, so this one imports none of them.

use core::ops::{Deref, DerefMut};
use core::ptr;
use std::sync::Arc;

use crate::abi::*;
use crate::config;
use crate::dtls::SecureLayer;
use crate::mem::CBox;
use crate::net::clock;
use crate::net::host_socket::SocketFamily;
use crate::net::request_queue::RequestQueue;
use crate::net::socket;
use crate::net::transport::SocketIo;
use crate::proto::host::{set_up_public, Engine};
use crate::proto::{Host, HostSettings, LossRecovery};

/// A host as `enet_host_create` makes it: the engine's host first, so the
/// `ENetHost *` C code holds (the engine host's first field) points at the
/// whole of this; then the socket batches the driver keeps between calls.
#[repr(C)]
pub(crate) struct DriverHost {
    pub(super) host: Host,
    /// The datagram batches of the host's socket (`host.public.socket`).
    pub(crate) io: SocketIo,
    /// Which peers the socket reaches (IPv4 for a stock host; others come
    /// from `enet_rs_host_create`).
    pub(crate) family: SocketFamily,
    /// Requests from other threads, once `enet_rs_host_sender` was called.
    pub(crate) requests: Option<Arc<RequestQueue>>,
    /// The host's encryption, once `enet_rs_host_dtls_server` or
    /// `enet_rs_host_dtls_client` was called.
    pub(crate) secure: Option<Box<SecureLayer>>,
}

impl Deref for DriverHost {
    type Target = Host;
    fn deref(&self) -> &Host {
        &self.host
    }
}

impl DerefMut for DriverHost {
    fn deref_mut(&mut self) -> &mut Host {
        &mut self.host
    }
}

/// Makes a host on a socket already opened and bound (whose address is
/// `bound`), or closes the socket and returns NULL. `peer_count` is
/// checked already.
pub(crate) fn host_on_socket(
    sock: ENetSocket,
    bound: ENetAddress,
    family: SocketFamily,
    peer_count: usize,
    channel_limit: usize,
    incoming_bandwidth: u32,
    outgoing_bandwidth: u32,
) -> *mut ENetHost {
    let settings = HostSettings {
        address: bound,
        socket: sock,
        peer_count,
        channel_limit,
        incoming_bandwidth,
        outgoing_bandwidth,
        random_seed: random_seed(),
        now: clock::now(),
    };
    let unowned = ClosedUnlessOwned(sock);
    let Some(mut driver) = new_driver(settings, sock, family) else {
        return ptr::null_mut();
    };
    driver
        .host
        .set_reassembly_budget(reassembly_budget_from_env());
    if let Some(recovery) = loss_recovery_from_env() {
        driver.host.set_loss_recovery(recovery);
    }
    driver.host.attach();
    // From here the host owns the socket: `enet_host_destroy` closes it.
    core::mem::forget(unowned);
    driver.into_raw().cast::<ENetHost>()
}

/// A socket no host owns yet, closed when this is dropped (a failed
/// creation, or a panic that `guard!` catches at the entry point) unless
/// it is forgotten once a host owns it.
struct ClosedUnlessOwned(ENetSocket);

impl Drop for ClosedUnlessOwned {
    fn drop(&mut self) {
        socket::destroy(self.0);
    }
}

/// A host's driver with `settings` on `sock`, made in its heap place: the
/// host holds an 11 KiB `ENetHost`, and moving it there through the stack
/// left three copies' worth of stack pages (37 KiB) resident in every
/// process. `None` for too many peers or when allocation fails.
fn new_driver(
    settings: HostSettings,
    sock: ENetSocket,
    family: SocketFamily,
) -> Option<CBox<DriverHost>> {
    // Every field is written below. This pattern stops compiling when a
    // field is added to either struct, so none can be left as zero bytes.
    let _every_field = |driver: &DriverHost| {
        let DriverHost {
            host: Host {
                public: _,
                engine: _,
            },
            io: _,
            family: _,
            requests: _,
            secure: _,
        } = driver;
    };
    // SAFETY: `init` answers true only once every field is written: the
    // host's public part is an `ENetHost`, all integers, raw pointers,
    // optional function pointers and arrays of those, for which zero bytes
    // are valid, and `set_up_public` sets it up from there; the other
    // fields are written whole through `addr_of_mut!` places (no reference
    // to uninitialised memory is made).
    unsafe {
        CBox::try_new_zeroed_with(|driver: *mut DriverHost| {
            let Some(engine) = Engine::new(&settings) else {
                return false;
            };
            set_up_public(&mut *ptr::addr_of_mut!((*driver).host.public), &settings);
            ptr::addr_of_mut!((*driver).host.engine).write(engine);
            ptr::addr_of_mut!((*driver).io).write(SocketIo::new(sock, family.is_ipv6()));
            ptr::addr_of_mut!((*driver).family).write(family);
            ptr::addr_of_mut!((*driver).requests).write(None);
            ptr::addr_of_mut!((*driver).secure).write(None);
            true
        })
    }
}

/// `ENET_RS_REASSEMBLY_BUDGET`: a fixed host-wide limit, in bytes, on
/// what incomplete fragment reassemblies may hold. Unset or unreadable
/// leaves the default.
fn reassembly_budget_from_env() -> Option<usize> {
    config::REASSEMBLY_BUDGET.read()?.trim().parse().ok()
}

/// A seed for connect ids: from the system's random source, or the time
/// where that fails (stock seeds from the time alone). The source is read
/// directly rather than through a hasher's per-thread keys: the thread-local
/// lookup's call stub sits in the library's last page of code, which then
/// stayed resident in every process for this one call.
fn random_seed() -> u32 {
    use rand_core::{OsRng, RngCore};
    let mut seed = [0u8; 4];
    match OsRng.try_fill_bytes(&mut seed) {
        Ok(()) => u32::from_ne_bytes(seed),
        Err(_) => clock::now(),
    }
}

/// The loss recovery `ENET_RS_LOSS_RECOVERY` asks every host for: `stock`,
/// `default` or `fast` (read when a host is created; anything else, or
/// nothing, leaves the default).
fn loss_recovery_from_env() -> Option<LossRecovery> {
    let value = config::LOSS_RECOVERY.read()?;
    match value.trim().to_ascii_lowercase().as_str() {
        "stock" => Some(LossRecovery::STOCK),
        "default" => Some(LossRecovery::DEFAULT),
        "fast" => Some(LossRecovery::FAST),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A UDP socket bound to a free port on 127.0.0.1, and that port.
    fn bound_socket() -> (ENetSocket, ENetAddress) {
        let sock = socket::create(ENetSocketType::ENET_SOCKET_TYPE_DATAGRAM as i32).unwrap();
        let loopback = ENetAddress {
            host: u32::from_ne_bytes([127, 0, 0, 1]),
            port: 0,
        };
        socket::bind(sock, Some(&loopback)).unwrap();
        (sock, socket::local_address(sock).unwrap())
    }

    /// Whether a new socket can bind `address`: only if no socket holds it.
    fn is_free(address: &ENetAddress) -> bool {
        let probe = socket::create(ENetSocketType::ENET_SOCKET_TYPE_DATAGRAM as i32).unwrap();
        let free = socket::bind(probe, Some(address)).is_ok();
        socket::destroy(probe);
        free
    }

    #[test]
    fn a_host_that_cannot_be_made_closes_its_socket() {
        let (sock, address) = bound_socket();
        assert!(!is_free(&address));
        let too_many_peers = ENET_PROTOCOL_MAXIMUM_PEER_ID as usize + 1;
        let host = host_on_socket(sock, address, SocketFamily::Ipv4, too_many_peers, 1, 0, 0);
        assert!(host.is_null());
        assert!(is_free(&address));
    }

    #[test]
    fn a_panic_while_making_a_host_closes_its_socket() {
        let (sock, address) = bound_socket();
        let caught = std::panic::catch_unwind(|| {
            let _unowned = ClosedUnlessOwned(sock);
            panic!("making the host failed");
        });
        assert!(caught.is_err());
        assert!(is_free(&address));
    }
}
