//! Which hosts are busy: the re-entrancy guard.
//!
//! While an entry point works on a host it holds `&mut` to it, and the
//! engine may run the program's code meanwhile: the intercept, the
//! checksum, the compressor, a packet's free callback. If that code calls
//! back into the library on the same host, a second reference to the host
//! would be made while the first is live, which Rust forbids. So every
//! entry point that takes a host or a peer first asks the host's
//! [`HostGuard`], which sits beside the host in its allocation but outside
//! the part entry points borrow (`endpoint::Housed`):
//!
//! - a host an entry point is working on is *busy*, and the guard knows on
//!   which thread; its peers are the ones in its peer array's address
//!   range;
//! - on that thread, which is inside one of the host's callbacks, the calls
//!   stock lets a callback make (`enet_peer_send`, `enet_host_broadcast`,
//!   `enet_peer_disconnect*`, `enet_peer_reset`) are queued on the guard as
//!   [`CallbackCall`]s, which the engine applies at its next safe point,
//!   and the entry point's stay at the latest when it ends; every other
//!   call on the host returns its failure value;
//! - a call from another thread meanwhile breaks the one-thread-per-host
//!   rule; it goes ahead as it would on stock, unguarded, and leaves the
//!   guard as it found it (`enet_host_destroy` alone does nothing then).
//!
//! Entering and leaving a host cost a few stores and no thread-local
//! look-up. A peer's host is read from the peer (`peer->host`) only when
//! that cannot race a reference the library holds on this thread: while
//! no program code runs inside a library call anywhere
//! ([`crate::mem::program_code`], one load), or once the guards, found by
//! address in process-wide ordered maps of them, say the peer's host is not
//! busy on this thread. Nothing is allocated unless a callback's call is
//! queued.

use core::cell::RefCell;
use core::marker::PhantomData;
use core::ops::Range;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::abi::{ENetHost, ENetPeer};
use crate::mem::program_code;
use crate::net::sys::current_thread;
use crate::proto::host::request::CallbackCall;
use crate::proto::PeerIndex;

/// Calls queued by callbacks and not yet taken, on every thread: while it
/// is 0, which is nearly always, the engine's look for calls to apply
/// costs one load.
static PENDING: AtomicUsize = AtomicUsize::new(0);

/// Every live C host's guard, by address, to find a peer's host (or a
/// host's guard) by address alone.
static GUARDS: Mutex<Guards> = Mutex::new(Guards {
    by_host: BTreeMap::new(),
    by_peers: BTreeMap::new(),
});

/// The guards' addresses, ordered for a look-up in logarithmic time
/// however many hosts a process has.
struct Guards {
    /// By their host's address.
    by_host: BTreeMap<usize, usize>,
    /// Those with peers, by where their peer array starts (peer arrays
    /// never overlap).
    by_peers: BTreeMap<usize, usize>,
}

impl Guards {
    /// The guard whose peer array holds `address`, if one does.
    fn holding_peer(&self, address: usize) -> Option<&'static HostGuard> {
        let (_, &guard) = self.by_peers.range(..=address).next_back()?;
        let guard = listed(guard);
        guard.peers.contains(&address).then_some(guard)
    }
}

/// One C host's busy state, kept beside the host (see the module's notes).
pub(crate) struct HostGuard {
    /// The thread an entry point is inside the host on
    /// ([`current_thread`]), or 0.
    inside: AtomicUsize,
    /// The host's `ENetHost *`.
    host: usize,
    /// The addresses of its peer array.
    peers: Range<usize>,
    /// Calls made from the host's callbacks, in order, not yet applied.
    calls: RefCell<Vec<CallbackCall>>,
}

// SAFETY: other threads read a guard's `inside` (an atomic) and its
// addresses, which are fixed before the host is handed to C. `calls` is
// only touched on the thread `inside` names while it names it: by
// [`Busy::defer`], which only a lookup from that thread hands out, and by
// that thread's [`Entered`] and engine safe points.
unsafe impl Sync for HostGuard {}

impl HostGuard {
    /// The guard of a host not handed to C yet.
    pub(crate) fn new() -> HostGuard {
        HostGuard {
            inside: AtomicUsize::new(0),
            host: 0,
            peers: 0..0,
            calls: RefCell::new(Vec::new()),
        }
    }

    /// Says which host this guards: the host at `host` with its peer array
    /// at `peers`. Done once, before the host is handed to C.
    pub(crate) fn describe(&mut self, host: *const ENetHost, peers: *const ENetPeer, count: usize) {
        let start = peers as usize;
        self.host = host as usize;
        self.peers = start..start + count * core::mem::size_of::<ENetPeer>();
    }

    /// Whether an entry point is inside the host, and on which thread.
    #[inline]
    pub(crate) fn lookup(&self) -> HostLookup {
        match self.inside.load(Ordering::Acquire) {
            0 => HostLookup::Idle,
            thread if thread == current_thread() => HostLookup::Busy(Busy { guard: self }),
            _ => HostLookup::Elsewhere,
        }
    }

    /// The calls queued on this guard, taken.
    fn take(&self) -> Vec<CallbackCall> {
        let calls = core::mem::take(&mut *self.calls.borrow_mut());
        PENDING.fetch_sub(calls.len(), Ordering::Relaxed);
        calls
    }
}

/// Adds a host's guard to the process-wide maps; the guard must stay
/// where it is until [`unregister`] takes it off.
pub(crate) fn register(guard: &HostGuard) {
    let mut guards = GUARDS.lock().unwrap_or_else(PoisonError::into_inner);
    let address = guard as *const HostGuard as usize;
    guards.by_host.insert(guard.host, address);
    if !guard.peers.is_empty() {
        guards.by_peers.insert(guard.peers.start, address);
    }
}

/// Takes a host's guard off the maps, before its memory goes.
pub(crate) fn unregister(guard: &HostGuard) {
    let mut guards = GUARDS.lock().unwrap_or_else(PoisonError::into_inner);
    guards.by_host.remove(&guard.host);
    if !guard.peers.is_empty() {
        guards.by_peers.remove(&guard.peers.start);
    }
}

/// The guard at `address`, one of the maps'.
fn listed(address: usize) -> &'static HostGuard {
    // SAFETY: an address is in the maps from `register` until
    // `unregister`, which `enet_host_destroy` calls before the guard's
    // memory goes, and both hold the maps' lock, as every reader does
    // while it uses what it read; past the lock a reader keeps only the
    // guard of a host busy on its own thread, which lives while the host
    // is busy (only that thread may destroy it, and `enet_host_destroy`
    // does nothing on a busy host). Guards are only read through shared
    // references (their changing parts are an atomic and a `RefCell`).
    // The `'static` never leaves the one entry point call that looked.
    unsafe { &*(address as *const HostGuard) }
}

/// What an `ENetHost *` or an `ENetPeer *`'s host is to this thread.
pub(crate) enum HostLookup {
    /// No entry point is working on it.
    Idle,
    /// An entry point below this call, on this thread, is working on it:
    /// this is a call from one of its callbacks.
    Busy(Busy),
    /// An entry point on another thread is working on it: the program
    /// broke the one-thread rule.
    Elsewhere,
}

/// What a host's lookup found, for an entry point going ahead.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    Idle,
    Elsewhere,
}

/// What an `ENetPeer *` is to this thread.
pub(crate) enum PeerLookup {
    /// Not a peer of a host busy on this thread: its `host` field can be
    /// read.
    Readable,
    /// A peer of a host busy on this thread, and its slot.
    Busy(Busy, PeerIndex),
    /// Inside the peer array of a host busy on this thread, but not at the
    /// start of a peer.
    Stray,
}

/// A busy host's guard, as a call from one of its callbacks finds it.
#[derive(Clone, Copy)]
pub(crate) struct Busy {
    guard: *const HostGuard,
}

impl Busy {
    /// Queues `call` for the engine to apply once the callback returns.
    pub(crate) fn defer(self, call: CallbackCall) {
        // SAFETY: a `Busy` is made from a live guard of a host busy on this
        // thread, inside the call that holds it; the host cannot be
        // destroyed meanwhile (`enet_host_destroy` does nothing on a busy
        // host), so the guard outlives the call.
        let guard = unsafe { &*self.guard };
        guard.calls.borrow_mut().push(call);
        PENDING.fetch_add(1, Ordering::Relaxed);
    }
}

/// Whether `peer` is a peer of a host busy on this thread, by address
/// alone.
#[inline]
pub(crate) fn find_peer(peer: *const ENetPeer) -> PeerLookup {
    // Only program code run by the library can call it from inside a host.
    if !program_code::running_anywhere() {
        return PeerLookup::Readable;
    }
    find_peer_of_busy_host(peer)
}

/// [`find_peer`] while program code runs somewhere: the guards' maps say
/// whose array the peer is in.
#[cold]
#[inline(never)]
fn find_peer_of_busy_host(peer: *const ENetPeer) -> PeerLookup {
    let address = peer as usize;
    let guards = GUARDS.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(guard) = guards.holding_peer(address) else {
        return PeerLookup::Readable;
    };
    let HostLookup::Busy(busy) = guard.lookup() else {
        return PeerLookup::Readable;
    };
    let size = core::mem::size_of::<ENetPeer>();
    let offset = address - guard.peers.start;
    let count = guard.peers.len() / size;
    match PeerIndex::checked(offset / size, count) {
        Some(index) if offset % size == 0 => PeerLookup::Busy(busy, index),
        _ => PeerLookup::Stray,
    }
}

/// The calls the program made from the callbacks of `host`, the host this
/// thread's innermost entry point works on, if it made any.
#[inline(always)]
pub(crate) fn take_calls(host: *const ENetHost) -> Option<Vec<CallbackCall>> {
    // This thread's own queued calls counted in before it looks here.
    if PENDING.load(Ordering::Relaxed) == 0 {
        return None;
    }
    take_pending_calls(host)
}

/// [`take_calls`] once some thread has calls queued.
#[cold]
#[inline(never)]
fn take_pending_calls(host: *const ENetHost) -> Option<Vec<CallbackCall>> {
    let guards = GUARDS.lock().unwrap_or_else(PoisonError::into_inner);
    let guard = listed(*guards.by_host.get(&(host as usize))?);
    // The engine looks only from inside the host, on the thread inside it.
    let HostLookup::Busy(_) = guard.lookup() else {
        return None;
    };
    let calls = guard.take();
    (!calls.is_empty()).then_some(calls)
}

/// An entry point's stay inside a host: while it lasts the host is busy on
/// this thread. When it ends, the calls its callbacks made are applied
/// (through `finish`, with the host's transport) before the host stops
/// being busy, so that calls made from callbacks run meanwhile are applied
/// too.
pub(crate) struct Entered<'a, D, F: FnMut(&mut D)> {
    guard: &'a HostGuard,
    /// Whether this stay marked the host busy: not when another thread's
    /// was inside already (see the module's notes), whose mark it keeps.
    marked: bool,
    driver: Option<&'a mut D>,
    /// Applies the calls queued meanwhile (a function item: it takes no
    /// room, so entering stores nothing for it).
    finish: F,
    /// Not `Send`: the guard names this thread.
    _thread: PhantomData<*const ()>,
}

impl<'a, D, F: FnMut(&mut D)> Entered<'a, D, F> {
    /// Marks the host `guard` guards busy on this thread, given what its
    /// lookup found (`Idle`, or `Elsewhere`: then it is left marked as it
    /// is); `driver` is that host, `finish` applies its deferred calls.
    #[inline]
    pub(crate) fn enter(guard: &'a HostGuard, found: Found, driver: &'a mut D, finish: F) -> Self {
        let marked = found == Found::Idle;
        if marked {
            Self::mark(guard);
        }
        Entered {
            guard,
            marked,
            driver: Some(driver),
            finish,
            _thread: PhantomData,
        }
    }

    #[inline]
    fn mark(guard: &HostGuard) {
        guard.inside.store(current_thread(), Ordering::Relaxed);
    }

    /// The host, for the entry point's body.
    #[inline]
    pub(crate) fn driver(&mut self) -> &mut D {
        match self.driver.as_deref_mut() {
            Some(driver) => driver,
            None => unreachable!("a dying host's stay hands out no host"),
        }
    }
}

impl<'a, D> Entered<'a, D, fn(&mut D)> {
    /// Marks a host being destroyed busy: calls made on it meanwhile are
    /// refused or dropped (a dropped send frees a packet no peer took).
    pub(crate) fn enter_dying(guard: &'a HostGuard) -> Self {
        Self::mark(guard);
        Entered {
            guard,
            marked: true,
            driver: None,
            finish: |_| {},
            _thread: PhantomData,
        }
    }
}

impl<D, F: FnMut(&mut D)> Entered<'_, D, F> {
    /// Applies the calls queued while the host was busy, or, when nobody
    /// will (the host is going, or a panic), drops them, which may run
    /// free callbacks that queue more.
    #[cold]
    #[inline(never)]
    fn finish_calls(&mut self) {
        if self.guard.calls.borrow().is_empty() {
            return;
        }
        if !std::thread::panicking() {
            if let Some(driver) = self.driver.as_deref_mut() {
                (self.finish)(driver);
            }
        }
        loop {
            let calls = self.guard.take();
            if calls.is_empty() {
                break;
            }
            drop(calls);
        }
    }
}

impl<D, F: FnMut(&mut D)> Drop for Entered<'_, D, F> {
    #[inline]
    fn drop(&mut self) {
        if !self.marked {
            return;
        }
        if PENDING.load(Ordering::Relaxed) != 0 {
            self.finish_calls();
        }
        self.guard.inside.store(0, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: usize = core::mem::size_of::<ENetPeer>();

    /// A listed guard for a made-up host at `host` with `peers` peers from
    /// `base`, taken off the maps when dropped.
    struct Listed(Box<HostGuard>);

    impl Listed {
        fn new(host: usize, base: usize, peers: usize) -> Listed {
            let mut guard = Box::new(HostGuard::new());
            guard.describe(host as *const ENetHost, base as *const ENetPeer, peers);
            register(&guard);
            Listed(guard)
        }

        fn inside<R>(&self, body: impl FnOnce() -> R) -> R {
            inside(&self.0, body)
        }
    }

    /// Runs `body` with the host `guard` guards marked busy on this
    /// thread, as an entry point's stay does.
    fn inside<R>(guard: &HostGuard, body: impl FnOnce() -> R) -> R {
        Entered::<(), fn(&mut ())>::mark(guard);
        // What a callback run meanwhile counts.
        let running = program_code::ProgramCode::enter();
        let result = body();
        drop(running);
        guard.inside.store(0, Ordering::Release);
        result
    }

    impl Drop for Listed {
        fn drop(&mut self) {
            unregister(&self.0);
        }
    }

    #[test]
    fn nothing_is_busy_outside_every_host() {
        let listed = Listed::new(0x1000, 0x10_0000, 2);
        assert!(matches!(listed.0.lookup(), HostLookup::Idle));
        assert!(matches!(
            find_peer(0x10_0000 as *const ENetPeer),
            PeerLookup::Readable
        ));
        assert!(take_calls(0x1000 as *const ENetHost).is_none());
    }

    #[test]
    fn a_host_and_its_peers_are_busy_while_inside_it() {
        let (host, base) = (0x2000usize, 0x20_0000usize);
        let listed = Listed::new(host, base, 4);
        listed.inside(|| {
            assert!(matches!(listed.0.lookup(), HostLookup::Busy(_)));
            match find_peer((base + 3 * SIZE) as *const ENetPeer) {
                PeerLookup::Busy(_, index) => assert_eq!(index, PeerIndex::for_tests(3)),
                _ => panic!("the fourth peer is busy"),
            }
            assert!(matches!(
                find_peer((base + SIZE + 8) as *const ENetPeer),
                PeerLookup::Stray
            ));
            // Just past the array, and just before it.
            assert!(matches!(
                find_peer((base + 4 * SIZE) as *const ENetPeer),
                PeerLookup::Readable
            ));
            assert!(matches!(
                find_peer((base - SIZE) as *const ENetPeer),
                PeerLookup::Readable
            ));
        });
        assert!(matches!(listed.0.lookup(), HostLookup::Idle));
    }

    #[test]
    fn an_outer_host_stays_busy_inside_an_inner_one() {
        let outer = Listed::new(0x3000, 0x30_0000, 2);
        let inner = Listed::new(0x4000, 0x40_0000, 2);
        outer.inside(|| {
            inner.inside(|| {
                assert!(matches!(outer.0.lookup(), HostLookup::Busy(_)));
                assert!(matches!(inner.0.lookup(), HostLookup::Busy(_)));
                assert!(matches!(
                    find_peer((0x30_0000 + SIZE) as *const ENetPeer),
                    PeerLookup::Busy(_, _)
                ));
            });
            assert!(matches!(inner.0.lookup(), HostLookup::Idle));
            assert!(matches!(outer.0.lookup(), HostLookup::Busy(_)));
        });
    }

    #[test]
    fn a_host_busy_on_another_thread_is_elsewhere_and_its_peers_readable() {
        let listed = Listed::new(0x5000, 0x50_0000, 2);
        let guard: &HostGuard = &listed.0;
        let (entered, go_on) = (std::sync::Barrier::new(2), std::sync::Barrier::new(2));
        std::thread::scope(|scope| {
            scope.spawn(|| {
                inside(guard, || {
                    entered.wait();
                    go_on.wait();
                })
            });
            entered.wait();
            assert!(matches!(listed.0.lookup(), HostLookup::Elsewhere));
            assert!(matches!(
                find_peer(0x50_0000 as *const ENetPeer),
                PeerLookup::Readable
            ));
            go_on.wait();
        });
        assert!(matches!(listed.0.lookup(), HostLookup::Idle));
    }

    #[test]
    fn deferred_calls_are_taken_in_order_by_their_host_only() {
        let host = 0x6000usize;
        let listed = Listed::new(host, 0x60_0000, 2);
        let other = Listed::new(0x7000, 0x70_0000, 2);
        listed.inside(|| {
            let HostLookup::Busy(busy) = listed.0.lookup() else {
                panic!("busy");
            };
            busy.defer(CallbackCall::Reset {
                peer: PeerIndex::for_tests(1),
            });
            busy.defer(CallbackCall::Reset {
                peer: PeerIndex::for_tests(0),
            });
            assert!(take_calls(0x7000 as *const ENetHost).is_none());
            let calls = take_calls(host as *const ENetHost).expect("two calls");
            let peers: Vec<_> = calls
                .iter()
                .map(|call| match call {
                    CallbackCall::Reset { peer } => peer.get(),
                    _ => usize::MAX,
                })
                .collect();
            assert_eq!(peers, [1, 0]);
            assert!(take_calls(host as *const ENetHost).is_none());
        });
        drop(other);
    }
}
