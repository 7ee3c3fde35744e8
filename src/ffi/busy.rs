//! Which hosts this thread is inside of: the re-entrancy guard.
//!
//! While an entry point works on a host it holds `&mut` to it, and the
//! engine may run the program's code meanwhile: the intercept, the
//! checksum, the compressor, a packet's free callback. If that code calls
//! back into the library on the same host, a second reference to the host
//! would be made while the first is live, which Rust forbids. So every
//! entry point that takes a host or a peer first looks here, comparing
//! addresses only (it must not touch the host's memory to find out):
//!
//! - a host the thread is inside of is *busy*; its peers are the ones in
//!   its peer array's address range;
//! - the calls stock lets a callback make (`enet_peer_send`,
//!   `enet_host_broadcast`, `enet_peer_disconnect*`, `enet_peer_reset`)
//!   are queued on the busy host's context as [`CallbackCall`]s, which the
//!   engine applies at its next safe point, and the entry point's scope at
//!   the latest when it ends;
//! - every other call on a busy host returns its failure value.
//!
//! One thread at a time per host is the library's rule, so what this
//! thread is inside of is all there is to know: a per-thread chain of
//! contexts, innermost first (a callback may service another host, whose
//! callbacks may call into the first), kept in the platform's
//! [`ThreadSlot`]. A look costs one load while no host is entered on any
//! thread (the common case outside `enet_host_service`), and one read of
//! the slot otherwise; entering a host and leaving it cost the slot's read
//! and two writes. Nothing is allocated unless a callback's call is
//! queued.

use core::cell::{Cell, RefCell};
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::driver::DriverHost;
use crate::abi::{ENetHost, ENetPeer};
use crate::net::sys::ThreadSlot;
use crate::proto::host::request::CallbackCall;
use crate::proto::PeerIndex;

/// The innermost host context this thread is inside of, or NULL.
static INNERMOST: ThreadSlot = ThreadSlot::new();

/// Calls queued by callbacks and not yet taken, on every thread: while it
/// is 0, which is nearly always, the engine's look for calls to apply
/// costs one load and no thread slot read.
static PENDING: AtomicUsize = AtomicUsize::new(0);

/// Contexts linked on any thread. A thread only needs to know about its
/// own chain, and its own links and unlinks are seen by its own later
/// loads, so while this reads 0 the thread is inside no host and a look
/// costs one load instead of the thread slot's read. Other threads' counts
/// only send a look down the slow path, which is still exact.
static LINKED: AtomicUsize = AtomicUsize::new(0);

/// This thread's cell of [`INNERMOST`].
type Slot = &'static Cell<*const ()>;

/// One host an entry point on this thread is working on, known by
/// addresses only, and the calls its callbacks made meanwhile.
pub(crate) struct BusyHost {
    /// The host's `ENetHost *`.
    host: usize,
    /// The addresses of its peer array.
    peers: Range<usize>,
    /// The context this one is nested in, or NULL.
    outer: *const BusyHost,
    /// This thread's cell holding the innermost context.
    slot: Slot,
    /// Calls made from the host's callbacks, in order, not yet applied.
    /// Never dropped: the context's `Entered` takes every call before it
    /// ends, leaving an empty `Vec` that owns no memory, so the drop would
    /// be work for nothing on every entry point.
    calls: ManuallyDrop<RefCell<Vec<CallbackCall>>>,
}

/// What was innermost when an entry point looked: where its own context
/// goes. Not `Send`: it names this thread's chain.
#[derive(Clone, Copy)]
pub(crate) struct Outer {
    innermost: *const BusyHost,
    /// This thread's cell, when the look read it (not when nothing was
    /// linked anywhere).
    slot: Option<Slot>,
}

/// A busy host's context, as a call from one of its callbacks finds it.
#[derive(Clone, Copy)]
pub(crate) struct Busy {
    context: *const BusyHost,
}

/// What an `ENetHost *` is to this thread.
pub(crate) enum HostLookup {
    /// No entry point on this thread is working on it.
    Idle(Outer),
    /// An entry point below this call is working on it.
    Busy(Busy),
}

/// What an `ENetPeer *` is to this thread.
pub(crate) enum PeerLookup {
    /// Not a peer of a host this thread is working on.
    Idle(Outer),
    /// A peer of a busy host, and its slot.
    Busy(Busy, PeerIndex),
    /// Inside a busy host's peer array, but not at the start of a peer.
    Stray,
}

/// The context at `pointer`, one read from this thread's chain (or NULL).
#[inline]
fn context_at(pointer: *const BusyHost) -> Option<&'static BusyHost> {
    // SAFETY: a context is put on this thread's chain only by
    // `Entered::link` and taken off by its drop, which runs before the
    // block holding the context ends (the context is declared first, so it
    // is dropped last). A pointer read from the chain therefore points at a
    // live context in a frame below the current call, which lives for as
    // long as anything this call does with it; contexts are only ever read
    // through shared references (their one mutable part is a `RefCell`).
    // The `'static` never leaves the single entry point call that looked.
    unsafe { pointer.as_ref() }
}

/// Each context of this thread's chain, starting at `innermost`.
#[inline]
fn chain(innermost: *const BusyHost) -> impl Iterator<Item = &'static BusyHost> {
    core::iter::successors(context_at(innermost), |context| context_at(context.outer))
}

/// Whether `host` is busy on this thread: one thread-local read, then
/// address comparisons.
#[inline]
pub(crate) fn find_host(host: *const ENetHost) -> HostLookup {
    if LINKED.load(Ordering::Relaxed) == 0 {
        return HostLookup::Idle(Outer::NOTHING);
    }
    let slot = INNERMOST.cell();
    let innermost = slot.get().cast();
    find_host_from(
        Outer {
            innermost,
            slot: Some(slot),
        },
        host,
    )
}

impl Outer {
    /// What a look finds while no context is linked on any thread.
    const NOTHING: Outer = Outer {
        innermost: core::ptr::null(),
        slot: None,
    };
}

/// [`find_host`] with the chain read already.
#[inline]
pub(crate) fn find_host_from(outer: Outer, host: *const ENetHost) -> HostLookup {
    match chain(outer.innermost).find(|context| context.host == host as usize) {
        Some(context) => HostLookup::Busy(Busy { context }),
        None => HostLookup::Idle(outer),
    }
}

/// Whether `peer` is a peer of a host that is busy on this thread.
#[inline]
pub(crate) fn find_peer(peer: *const ENetPeer) -> PeerLookup {
    if LINKED.load(Ordering::Relaxed) == 0 {
        return PeerLookup::Idle(Outer::NOTHING);
    }
    let slot = INNERMOST.cell();
    let innermost: *const BusyHost = slot.get().cast();
    let address = peer as usize;
    let Some(context) = chain(innermost).find(|context| context.peers.contains(&address)) else {
        return PeerLookup::Idle(Outer {
            innermost,
            slot: Some(slot),
        });
    };
    let offset = address - context.peers.start;
    let size = core::mem::size_of::<ENetPeer>();
    if offset % size != 0 {
        return PeerLookup::Stray;
    }
    let count = (context.peers.end - context.peers.start) / size;
    match PeerIndex::checked(offset / size, count) {
        Some(index) => PeerLookup::Busy(Busy { context }, index),
        None => PeerLookup::Stray,
    }
}

impl Busy {
    /// Queues `call` for the engine to apply once the callback returns.
    pub(crate) fn defer(self, call: CallbackCall) {
        if let Some(context) = context_at(self.context) {
            context.calls.borrow_mut().push(call);
            PENDING.fetch_add(1, Ordering::Relaxed);
        }
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
    let context = context_at(INNERMOST.cell().get().cast())?;
    if context.host != host as usize {
        return None;
    }
    let calls = context.take();
    (!calls.is_empty()).then_some(calls)
}

impl BusyHost {
    /// The calls queued on this context, taken.
    fn take(&self) -> Vec<CallbackCall> {
        let calls = core::mem::take(&mut *self.calls.borrow_mut());
        PENDING.fetch_sub(calls.len(), Ordering::Relaxed);
        calls
    }
}

impl BusyHost {
    /// The context of `driver`, to be linked under `outer`.
    #[inline]
    pub(crate) fn new(driver: &DriverHost, outer: Outer) -> Self {
        let start = driver.host.public.peers as usize;
        let length = driver.host.public.peerCount * core::mem::size_of::<ENetPeer>();
        BusyHost {
            host: &driver.host.public as *const ENetHost as usize,
            peers: start..start + length,
            outer: outer.innermost,
            slot: outer.slot.unwrap_or_else(|| INNERMOST.cell()),
            calls: ManuallyDrop::new(RefCell::new(Vec::new())),
        }
    }
}

/// An entry point's stay inside a host: while it lasts the host is busy on
/// this thread. When it ends, the calls its callbacks made are applied
/// (through `finish`, with the host's transport) before the host stops
/// being busy, so that calls made from callbacks run meanwhile are applied
/// too.
pub(crate) struct Entered<'a> {
    context: &'a BusyHost,
    driver: Option<&'a mut DriverHost>,
    finish: fn(&mut DriverHost),
    /// Not `Send`: the context is on this thread's chain.
    _thread: PhantomData<*const ()>,
}

impl<'a> Entered<'a> {
    /// Makes `context` the innermost of this thread; `driver` is the host
    /// it describes, `finish` applies its deferred calls.
    #[inline]
    pub(crate) fn link(
        context: &'a BusyHost,
        driver: &'a mut DriverHost,
        finish: fn(&mut DriverHost),
    ) -> Self {
        context.slot.set((context as *const BusyHost).cast());
        LINKED.fetch_add(1, Ordering::Relaxed);
        Entered {
            context,
            driver: Some(driver),
            finish,
            _thread: PhantomData,
        }
    }

    /// Makes `context` innermost for a host being destroyed: calls made on
    /// it meanwhile are refused or dropped (a dropped send frees a packet
    /// no peer took).
    pub(crate) fn link_dying(context: &'a BusyHost) -> Self {
        context.slot.set((context as *const BusyHost).cast());
        LINKED.fetch_add(1, Ordering::Relaxed);
        Entered {
            context,
            driver: None,
            finish: |_| {},
            _thread: PhantomData,
        }
    }

    /// The host, for the entry point's body.
    #[inline]
    pub(crate) fn driver(&mut self) -> &mut DriverHost {
        match self.driver.as_deref_mut() {
            Some(driver) => driver,
            None => unreachable!("a dying host's scope hands out no host"),
        }
    }
}

impl Entered<'_> {
    /// Applies the calls queued while the host was busy, or, when nobody
    /// will (the host is going, or a panic), drops them, which may run
    /// free callbacks that queue more.
    #[cold]
    #[inline(never)]
    fn finish_calls(&mut self) {
        if !std::thread::panicking() {
            if let Some(driver) = self.driver.as_deref_mut() {
                (self.finish)(driver);
            }
        }
        loop {
            let calls = self.context.take();
            if calls.is_empty() {
                break;
            }
            drop(calls);
        }
    }
}

impl Drop for Entered<'_> {
    #[inline]
    fn drop(&mut self) {
        if !self.context.calls.borrow().is_empty() {
            self.finish_calls();
        }
        self.context.slot.set(self.context.outer.cast());
        LINKED.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A context for a made-up host at `host` with `peers` peers from
    /// `base`, linked as innermost while `body` runs.
    fn inside<R>(host: usize, base: usize, peers: usize, body: impl FnOnce() -> R) -> R {
        let slot = INNERMOST.cell();
        let context = BusyHost {
            host,
            peers: base..base + peers * core::mem::size_of::<ENetPeer>(),
            outer: slot.get().cast(),
            slot,
            calls: ManuallyDrop::new(RefCell::new(Vec::new())),
        };
        slot.set((&context as *const BusyHost).cast());
        LINKED.fetch_add(1, Ordering::Relaxed);
        let result = body();
        slot.set(context.outer.cast());
        LINKED.fetch_sub(1, Ordering::Relaxed);
        result
    }

    const SIZE: usize = core::mem::size_of::<ENetPeer>();

    #[test]
    fn nothing_is_busy_outside_every_host() {
        assert!(matches!(
            find_host(0x1000 as *const ENetHost),
            HostLookup::Idle(_)
        ));
        assert!(matches!(
            find_peer(0x2000 as *const ENetPeer),
            PeerLookup::Idle(_)
        ));
        assert!(take_calls(0x1000 as *const ENetHost).is_none());
    }

    #[test]
    fn a_host_and_its_peers_are_busy_while_inside_it() {
        let (host, base) = (0x1000usize, 0x10_0000usize);
        inside(host, base, 4, || {
            assert!(matches!(
                find_host(host as *const ENetHost),
                HostLookup::Busy(_)
            ));
            assert!(matches!(
                find_host(0x1008 as *const ENetHost),
                HostLookup::Idle(_)
            ));
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
                PeerLookup::Idle(_)
            ));
            assert!(matches!(
                find_peer((base - SIZE) as *const ENetPeer),
                PeerLookup::Idle(_)
            ));
        });
        assert!(matches!(
            find_host(host as *const ENetHost),
            HostLookup::Idle(_)
        ));
    }

    #[test]
    fn an_outer_host_stays_busy_inside_an_inner_one() {
        let (outer, inner) = (0x1000usize, 0x2000usize);
        inside(outer, 0x10_0000, 2, || {
            inside(inner, 0x20_0000, 2, || {
                assert!(matches!(
                    find_host(outer as *const ENetHost),
                    HostLookup::Busy(_)
                ));
                assert!(matches!(
                    find_host(inner as *const ENetHost),
                    HostLookup::Busy(_)
                ));
                assert!(matches!(
                    find_peer((0x10_0000 + SIZE) as *const ENetPeer),
                    PeerLookup::Busy(_, _)
                ));
            });
            assert!(matches!(
                find_host(inner as *const ENetHost),
                HostLookup::Idle(_)
            ));
            assert!(matches!(
                find_host(outer as *const ENetHost),
                HostLookup::Busy(_)
            ));
        });
    }

    #[test]
    fn deferred_calls_are_taken_in_order_by_their_host_only() {
        let (host, base) = (0x1000usize, 0x10_0000usize);
        inside(host, base, 2, || {
            let HostLookup::Busy(busy) = find_host(host as *const ENetHost) else {
                panic!("busy");
            };
            busy.defer(CallbackCall::Reset {
                peer: PeerIndex::for_tests(1),
            });
            busy.defer(CallbackCall::Reset {
                peer: PeerIndex::for_tests(0),
            });
            assert!(take_calls(0x3000 as *const ENetHost).is_none());
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
    }
}
