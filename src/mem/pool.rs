//! A pool of packet blocks: the memory of a destroyed packet is kept, by
//! size class, for the next packet of that class, so a message costs no
//! `malloc`/`free` pair on each side once traffic is flowing.
//!
//! A block is always a whole allocation from [`hooks::malloc`] (a packet's
//! header and its inline bytes), rounded up to its class's size while the
//! pool is on so that any block of a class can serve any packet of it.
//!
//! How many idle blocks a class keeps follows what traffic needs. It
//! starts at `BASE_CLASS_BYTES` worth; beyond its bound a block goes
//! straight back to `free`. A class that had to `malloc` (it ran empty)
//! and then has to `free` (it is full) is churning: a receive phase made
//! more packets than it keeps, and the program destroyed them all before
//! the next one. Its bound doubles then, up to `MOST_CLASS_BYTES` worth,
//! so that the next phase takes every packet from the pool. (Without it,
//! a flooded receiver spent a quarter of its time in `malloc`, `free` and
//! the page faults of a heap that glibc trimmed and grew again on every
//! phase: docs/performance.md.) The way back is [`decay`], once a second
//! from the hosts' service calls: a class that did not run empty in the
//! interval had more than it needed, so half of what it keeps beyond its
//! base is freed, and its bound comes down to what stays. (Halving needs no
//! bookkeeping on the per-packet path, where a low-water mark would; a
//! class halved below its need runs empty and grows again.) [`trim`] (at
//! `enet_deinitialize`) gives every idle block back.
//!
//! The pool is on only where it changes nothing a program can observe:
//! - with the default allocator. A program that installs its own with
//!   `enet_initialize_with_callbacks` sees one `malloc` per packet and its
//!   `free` at `enet_packet_destroy`, as before; installing hooks gives
//!   the idle blocks back to libc's `free` first.
//! - outside memory checkers that replace `malloc` (valgrind's memcheck,
//!   helgrind, drd…; AddressSanitizer, ThreadSanitizer, MemorySanitizer),
//!   so that a use after `enet_packet_destroy` is still reported and a
//!   block crossing threads is still seen through `malloc`/`free`.
//! - unless the process's switches say no (`ENET_RS_PACKET_POOL=off`).
//!
//! Once off, the pool stays off for the process, so a block it never
//! rounded up is never taken for one it did.
//!
//! The switches are parsed by `config`, a layer this one does not name: a
//! layer above both installs a reader ([`read_switches_with`]) that hands
//! them down as plain values ([`PoolSwitches`]). Installing it reads
//! nothing; the pool calls it once, at the first block it serves after, so
//! the environment is still read lazily, once per process, at the first
//! packet. The host builder installs it (every host of either API, so the
//! engine's packets), and `enet_packet_create` hands one with each packet
//! ([`allocate_reading`], looked at only while undecided: a C program's
//! packets before its first host, whether or not it called
//! `enet_initialize`). Rust code may make a packet before any host has
//! been built (`enet_safe::Packet::new`, the crate's tests): until a
//! reader comes, blocks are served undecided, from `malloc` but rounded up
//! to their class, so that whichever way the pool decides later, a block
//! it takes back is as large as its class. (Only safe Rust gets there,
//! which cannot overrun a packet, so a memory checker misses nothing by
//! the rounding.)
//!
//! Packets may be destroyed on any thread (`enet_packet_destroy`, the
//! thread-safe senders), so each class sits behind its own lock.
//!
//! Counted by callgrind, a pooled packet costs a few dozen instructions to
//! take and give back, where glibc's `malloc` and `free` cost about 160
//! (docs/performance.md).

use core::cell::UnsafeCell;
use core::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, Ordering};
use std::sync::OnceLock;

use super::{checker, hooks};

/// Block sizes, header included: a packet of up to `size - header` bytes
/// fits. The largest covers a datagram of the default MTU.
static CLASS_SIZES: [usize; 5] = [128, 256, 512, 1024, 2048];

/// The idle bytes each class keeps however quiet the process is.
const BASE_CLASS_BYTES: usize = 16 * 1024;

/// The most idle bytes a churning class keeps: a receive phase of 256
/// full datagrams of 64-byte messages makes about 4,900 packets, 600 KiB
/// of the smallest class.
const MOST_CLASS_BYTES: usize = 1024 * 1024;

/// The least time between two [`decay`]s, in ms.
const DECAY_INTERVAL: u32 = 1000;

const UNDECIDED: u8 = 0;
const ON: u8 = 1;
const OFF: u8 = 2;
static STATE: AtomicU8 = AtomicU8::new(UNDECIDED);

/// What the process's switches say about the pool, as plain values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolSwitches {
    /// Whether the pool may be used at all (`ENET_RS_PACKET_POOL`).
    pub packet_pool: bool,
    /// The dynamic loader's preload list (`LD_PRELOAD`), where valgrind's
    /// heap tools show, if set.
    pub preload: Option<String>,
}

/// The reader a higher layer installed, if one has.
static READER: OnceLock<fn() -> PoolSwitches> = OnceLock::new();

/// Lets the pool read the process's switches with `read`, once, when it
/// serves its next block (if it has not decided yet). The first reader
/// installed is kept; installing reads nothing. (Called once per host
/// built and on the undecided path, never per packet.)
pub fn read_switches_with(read: fn() -> PoolSwitches) {
    let _already_installed = READER.set(read);
}

/// Whether blocks are pooled now (`false` while undecided).
#[cfg(test)]
fn pooling() -> bool {
    STATE.load(Ordering::Acquire) == ON
}

/// Whether this process recycles memory the C side sees (deciding now
/// if it has not and a switches' reader is installed; not while
/// undecided): the packet blocks here, and the same conditions rule the
/// peers' channel arrays ([`super::channels`]).
pub fn recycles() -> bool {
    match STATE.load(Ordering::Acquire) {
        ON => true,
        OFF => false,
        _ => decide().unwrap_or(false),
    }
}

/// Decides once whether this process pools (see the module's notes), if
/// a reader has been installed; `None` while none has.
#[cold]
fn decide() -> Option<bool> {
    let read = READER.get()?;
    Some(decide_in(&STATE, wanted(&read())))
}

/// Moves `state` from undecided to `wanted`'s setting and returns whether
/// it pools. A concurrent `switch_off` wins: it only ever moves to OFF.
fn decide_in(state: &AtomicU8, wanted: bool) -> bool {
    let decided = if wanted { ON } else { OFF };
    match state.compare_exchange(UNDECIDED, decided, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => wanted,
        Err(current) => current == ON,
    }
}

/// Whether the process's switches and its allocator let it pool.
fn wanted(switches: &PoolSwitches) -> bool {
    hooks::default_allocator()
        && switches.packet_pool
        && !checker::memory_checked(switches.preload.as_deref())
}

/// The size a block of `size` bytes is given while the pool is
/// undecided: its class's, so the pool may keep it if it turns on.
fn undecided_size(size: usize) -> usize {
    class_of(size).map_or(size, |class| CLASS_SIZES[class])
}

/// The class of a block of at least `size` bytes, if one is that large.
fn class_of(size: usize) -> Option<usize> {
    CLASS_SIZES.iter().position(|&class| size <= class)
}

/// The idle blocks each class keeps for `bytes`.
const fn blocks_for(bytes: usize) -> [usize; CLASS_SIZES.len()] {
    let mut blocks = [0; CLASS_SIZES.len()];
    let mut class = 0;
    while class < CLASS_SIZES.len() {
        blocks[class] = bytes / CLASS_SIZES[class];
        class += 1;
    }
    blocks
}

/// The idle blocks a class keeps however quiet, and at most.
static BASE_BOUNDS: [usize; CLASS_SIZES.len()] = blocks_for(BASE_CLASS_BYTES);
static MOST_BOUNDS: [usize; CLASS_SIZES.len()] = blocks_for(MOST_CLASS_BYTES);

/// One class's idle blocks, behind a spin lock: the critical sections are
/// a handful of instructions, where a `Mutex`'s bookkeeping (poisoning, a
/// growable list) cost as much as the `malloc` and `free` it replaced.
struct Class {
    locked: AtomicBool,
    idle: UnsafeCell<Idle>,
}

/// A class's idle blocks: a stack threaded through the blocks themselves
/// (an idle block's first word points at the next one), so keeping more
/// of them costs nothing but the blocks.
struct Idle {
    top: *mut c_void,
    len: usize,
    /// How many it keeps now, between the class's base and most bounds.
    bound: usize,
    /// Whether an allocation found the class empty since the last decay.
    ran_empty: bool,
}

// SAFETY: `idle` is only reached through `Class::lock`, which lets one
// thread in at a time; the blocks are plain allocator memory that no one
// points into while idle, so any thread may take them.
unsafe impl Sync for Class {}

/// A held class lock; released when dropped.
struct Held<'a> {
    class: &'a Class,
}

impl Class {
    const fn new(bound: usize) -> Class {
        Class {
            locked: AtomicBool::new(false),
            idle: UnsafeCell::new(Idle {
                top: core::ptr::null_mut(),
                len: 0,
                bound,
                ran_empty: false,
            }),
        }
    }

    #[inline]
    fn lock(&self) -> Held<'_> {
        if self.locked.swap(true, Ordering::Acquire) {
            self.wait();
        }
        Held { class: self }
    }

    /// Gives up to `count` idle blocks back to `free`, one at a time so
    /// that `free` runs outside the lock.
    fn free_idle(&self, count: usize) {
        for _ in 0..count {
            let Some(block) = self.lock().idle().pop() else {
                break;
            };
            // SAFETY: idle blocks came from `hooks::malloc` and no one
            // points into them.
            unsafe { hooks::free(block) };
        }
    }

    /// Spins until this thread takes the lock another holds.
    #[cold]
    fn wait(&self) {
        let mut spins = 0u32;
        loop {
            while self.locked.load(Ordering::Relaxed) {
                spins = spins.wrapping_add(1);
                if spins % 64 == 0 {
                    // The holder may have been preempted mid-section.
                    std::thread::yield_now();
                } else {
                    core::hint::spin_loop();
                }
            }
            if !self.locked.swap(true, Ordering::Acquire) {
                return;
            }
        }
    }
}

impl Held<'_> {
    fn idle(&mut self) -> &mut Idle {
        // SAFETY: this guard holds the class's lock, so no other thread
        // reaches `idle` until it is dropped, and `&mut self` keeps this
        // borrow unique.
        unsafe { &mut *self.class.idle.get() }
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.class.locked.store(false, Ordering::Release);
    }
}

impl Idle {
    fn pop(&mut self) -> Option<*mut c_void> {
        if self.top.is_null() {
            self.ran_empty = true;
            return None;
        }
        let block = self.top;
        // SAFETY: an idle block is a live allocation of at least a class's
        // size, suitably aligned for a pointer (from `malloc`), whose first
        // word `push` wrote; no one else points into it.
        self.top = unsafe { block.cast::<*mut c_void>().read() };
        self.len -= 1;
        Some(block)
    }

    /// Keeps `block` unless the bound is reached and the class has not
    /// run empty since the last decay; a class that has grows its bound
    /// (doubling, up to `most`) to keep it, and sets `grown`.
    ///
    /// # Safety
    /// `block` is a live allocation of at least a pointer's size from
    /// `malloc`, which no one uses any more.
    unsafe fn push(&mut self, block: *mut c_void, most: usize, grown: &AtomicBool) -> bool {
        if self.len >= self.bound {
            if !self.ran_empty || self.bound >= most {
                return false;
            }
            self.bound = (self.bound * 2).min(most);
            grown.store(true, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract: the block is ours, large and
        // aligned enough for a pointer.
        unsafe { block.cast::<*mut c_void>().write(self.top) };
        self.top = block;
        self.len += 1;
        true
    }

    /// Ends a decay interval: unless the class ran empty in it, half of
    /// the idle blocks beyond `base` (rounded up) are to go, and the bound
    /// comes down to what stays (never below `base`). Returns how many
    /// blocks the caller is to take out and free, outside the lock, and
    /// whether the bound is still above `base`.
    fn decay(&mut self, base: usize) -> (usize, bool) {
        let unneeded = if std::mem::take(&mut self.ran_empty) {
            0
        } else {
            let unneeded = self.len.saturating_sub(base).div_ceil(2);
            self.bound = (self.len - unneeded).max(base);
            unneeded
        };
        (unneeded, self.bound > base)
    }
}

/// Idle blocks by class.
struct Pool {
    classes: [Class; CLASS_SIZES.len()],
    /// Whether a class's bound may be above its base: only then has
    /// [`decay`] anything to do, so a pool that never grew costs a
    /// service call one load (and runs no code outside the hot text).
    grown: AtomicBool,
}

static POOL: Pool = Pool::new();

impl Pool {
    const fn new() -> Pool {
        Pool {
            classes: [
                Class::new(BASE_BOUNDS[0]),
                Class::new(BASE_BOUNDS[1]),
                Class::new(BASE_BOUNDS[2]),
                Class::new(BASE_BOUNDS[3]),
                Class::new(BASE_BOUNDS[4]),
            ],
            grown: AtomicBool::new(false),
        }
    }

    // Always inlined: the undecided path calls it too, and a second
    // caller would otherwise leave every packet's allocation a call.
    #[inline(always)]
    fn allocate(&self, size: usize) -> *mut c_void {
        let Some(class) = class_of(size) else {
            return hooks::malloc(size);
        };
        if let Some(block) = self.classes[class].lock().idle().pop() {
            return block;
        }
        hooks::malloc(CLASS_SIZES[class])
    }

    /// # Safety
    /// As for [`release`], with `block` from this pool's `allocate`.
    #[inline]
    unsafe fn release(&self, block: *mut c_void, size: usize) {
        if let Some(class) = class_of(size) {
            // SAFETY: forwarded contract: a block from `allocate` (at
            // least a class's size, from `malloc`), not used again.
            if unsafe {
                self.classes[class]
                    .lock()
                    .idle()
                    .push(block, MOST_BOUNDS[class], &self.grown)
            } {
                return;
            }
        }
        // SAFETY: the block came from `hooks::malloc`, through `allocate`.
        unsafe { hooks::free(block) }
    }

    fn decay(&self) {
        // Cleared first, so that a class growing meanwhile sets it again.
        if !self.grown.swap(false, Ordering::Relaxed) {
            return;
        }
        let mut still_grown = false;
        for (class, base) in self.classes.iter().zip(BASE_BOUNDS) {
            let (unneeded, grown) = class.lock().idle().decay(base);
            still_grown |= grown;
            class.free_idle(unneeded);
        }
        if still_grown {
            self.grown.store(true, Ordering::Relaxed);
        }
    }

    fn trim(&self) {
        for class in &self.classes {
            class.free_idle(usize::MAX);
        }
    }

    #[cfg(test)]
    fn idle_counts(&self) -> Vec<usize> {
        self.classes
            .iter()
            .map(|class| class.lock().idle().len)
            .collect()
    }
}

/// A block of at least `size` bytes: an idle one of its class, or a new
/// one from [`hooks::malloc`] (NULL, after the out-of-memory hook, if that
/// fails).
#[inline]
pub fn allocate(size: usize) -> *mut c_void {
    allocate_with(size, None)
}

/// [`allocate`], installing `read` as the switches' reader first if the
/// pool has not decided yet and no reader is installed: how a program's
/// first packet, made before any host, brings one. Costs nothing once the
/// pool has decided (`read` is only touched on the undecided path).
#[inline]
pub fn allocate_reading(size: usize, read: fn() -> PoolSwitches) -> *mut c_void {
    allocate_with(size, Some(read))
}

#[inline(always)]
fn allocate_with(size: usize, read: Option<fn() -> PoolSwitches>) -> *mut c_void {
    match STATE.load(Ordering::Acquire) {
        ON => POOL.allocate(size),
        OFF => hooks::malloc(size),
        _ => allocate_undecided(size, read),
    }
}

/// [`allocate`] before the pool has decided: decides now if it can.
#[cold]
fn allocate_undecided(size: usize, read: Option<fn() -> PoolSwitches>) -> *mut c_void {
    if let Some(read) = read {
        read_switches_with(read);
    }
    match decide() {
        Some(true) => POOL.allocate(size),
        Some(false) => hooks::malloc(size),
        None => hooks::malloc(undecided_size(size)),
    }
}

/// Takes back a block from [`allocate`] that holds at least `size` bytes
/// (the caller may not know its exact size; any lower bound is safe).
///
/// # Safety
/// `block` must come from [`allocate`] and not be used again.
#[inline]
pub unsafe fn release(block: *mut c_void, size: usize) {
    // Undecided, the block goes straight back: only `allocate` decides.
    if STATE.load(Ordering::Acquire) == ON {
        // SAFETY: forwarded contract; while pooling, and while undecided
        // before, `allocate` rounded every block of a class up to the
        // class's size.
        unsafe { POOL.release(block, size) }
    } else {
        // SAFETY: forwarded contract.
        unsafe { hooks::free(block) }
    }
}

/// When the pool last decayed, in the hosts' ms.
static LAST_DECAY: AtomicU32 = AtomicU32::new(0);

/// Frees the idle blocks no packet needed since the last decay, at most
/// once every `DECAY_INTERVAL` ms of `now` (a host's service time; the
/// hosts call it about once a second each).
#[inline]
pub fn decay(now: u32) {
    if POOL.grown.load(Ordering::Relaxed) {
        decay_grown(now);
    }
}

#[cold]
#[inline(never)]
fn decay_grown(now: u32) {
    let last = LAST_DECAY.load(Ordering::Relaxed);
    if now.wrapping_sub(last) < DECAY_INTERVAL
        || LAST_DECAY
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
    {
        return;
    }
    POOL.decay();
}

/// Gives every idle block back to the allocator's `free`.
pub fn trim() {
    POOL.trim();
}

/// Turns pooling off for good and gives the idle blocks back: called
/// before the program's own allocator replaces the default one, whose
/// `free` the idle blocks need.
pub fn switch_off() {
    STATE.store(OFF, Ordering::Release);
    trim();
}

#[cfg(test)]
mod tests {
    use super::*;

    // Each test has a pool of its own (the process's is shared with every
    // other test that makes packets).

    #[test]
    fn a_released_block_serves_the_next_of_its_class() {
        let pool = Pool::new();
        let first = pool.allocate(100);
        // SAFETY: from `allocate`, released once.
        unsafe { pool.release(first, 100) };
        assert_eq!(pool.idle_counts()[0], 1);
        let again = pool.allocate(128);
        assert_eq!(again, first);
        let other = pool.allocate(129);
        assert_ne!(other, first);
        // SAFETY: as above.
        unsafe {
            pool.release(again, 128);
            pool.release(other, 129);
        }
        assert_eq!(pool.idle_counts()[..2], [1, 1]);
        pool.trim();
    }

    #[test]
    fn a_block_goes_to_a_class_no_larger_than_its_size() {
        let pool = Pool::new();
        // A 1000-byte block released as "at least 48 bytes" (its packet's
        // bytes were moved out) is only offered for small packets.
        let block = pool.allocate(1000);
        // SAFETY: from `allocate`, released once.
        unsafe { pool.release(block, 48) };
        assert_eq!(pool.idle_counts(), [1, 0, 0, 0, 0]);
        // Blocks larger than every class are freed at once.
        let huge = pool.allocate(5000);
        // SAFETY: as above.
        unsafe { pool.release(huge, 5000) };
        assert_eq!(pool.idle_counts(), [1, 0, 0, 0, 0]);
        pool.trim();
    }

    /// Allocates `count` blocks of `size` bytes and releases them all.
    fn phase(pool: &Pool, size: usize, count: usize) {
        let blocks: Vec<_> = (0..count).map(|_| pool.allocate(size)).collect();
        for &block in &blocks {
            // SAFETY: each from `allocate`, released once.
            unsafe { pool.release(block, size) };
        }
    }

    fn bound(pool: &Pool, class: usize) -> usize {
        pool.classes[class].lock().idle().bound
    }

    #[test]
    fn a_class_keeps_its_base_until_it_churns_and_trim_empties_it() {
        let pool = Pool::new();
        // Blocks released to a class that never ran empty (made as
        // `allocate` makes them when it does): the base bound holds.
        let blocks: Vec<_> = (0..BASE_BOUNDS[4] + 3)
            .map(|_| hooks::malloc(CLASS_SIZES[4]))
            .collect();
        for &block in &blocks {
            // SAFETY: each a block of the class's size from
            // `hooks::malloc`, released once.
            unsafe { pool.release(block, 2000) };
        }
        assert_eq!(pool.idle_counts()[4], BASE_BOUNDS[4]);
        assert!(!pool.grown.load(Ordering::Relaxed));
        pool.trim();
        assert_eq!(pool.idle_counts(), [0; 5]);
    }

    /// A phase of more packets than the class keeps grows it to keep
    /// them all, so the next phase is served whole; never past its most.
    #[test]
    fn a_churning_class_grows_to_its_phase_and_no_further_than_its_most() {
        let pool = Pool::new();
        let phase_blocks = 10 * BASE_BOUNDS[0] + 7;
        phase(&pool, 100, phase_blocks);
        assert_eq!(pool.idle_counts()[0], phase_blocks);
        let grown = bound(&pool, 0);
        assert!((phase_blocks..2 * phase_blocks).contains(&grown), "{grown}");
        // The next phase takes every block from the pool.
        pool.decay();
        let blocks: Vec<_> = (0..phase_blocks).map(|_| pool.allocate(100)).collect();
        assert_eq!(pool.idle_counts()[0], 0);
        assert!(!pool.classes[0].lock().idle().ran_empty);
        for &block in &blocks {
            // SAFETY: each from `allocate`, released once.
            unsafe { pool.release(block, 100) };
        }
        phase(&pool, 2000, MOST_BOUNDS[4] + 50);
        assert_eq!(pool.idle_counts()[4], MOST_BOUNDS[4]);
        assert_eq!(bound(&pool, 4), MOST_BOUNDS[4]);
        pool.trim();
    }

    /// An interval in which a class ran empty keeps every block; each
    /// quiet one halves what it keeps beyond its base, down to the base.
    #[test]
    fn decay_keeps_what_a_phase_needed_and_halves_the_rest() {
        let pool = Pool::new();
        let phase_blocks = 4 * BASE_BOUNDS[0];
        phase(&pool, 100, phase_blocks);
        pool.decay();
        assert_eq!(pool.idle_counts()[0], phase_blocks);
        // A phase one block larger runs empty: everything stays.
        phase(&pool, 100, phase_blocks + 1);
        pool.decay();
        assert_eq!(pool.idle_counts()[0], phase_blocks + 1);
        // Quiet intervals: half of the excess each.
        pool.decay();
        let excess = phase_blocks + 1 - BASE_BOUNDS[0];
        assert_eq!(
            pool.idle_counts()[0],
            BASE_BOUNDS[0] + excess - excess.div_ceil(2)
        );
        for _ in 0..16 {
            pool.decay();
        }
        assert_eq!(pool.idle_counts()[0], BASE_BOUNDS[0]);
        assert_eq!(bound(&pool, 0), BASE_BOUNDS[0]);
        assert!(!pool.grown.load(Ordering::Relaxed), "nothing left to decay");
        pool.trim();
    }

    #[test]
    fn blocks_cross_threads() {
        static SHARED: Pool = Pool::new();
        let block = SHARED.allocate(200) as usize;
        std::thread::spawn(move || {
            // SAFETY: from `allocate`, released once, on another thread.
            unsafe { SHARED.release(block as *mut c_void, 200) }
        })
        .join()
        .unwrap();
        assert_eq!(SHARED.allocate(200) as usize, block);
        // SAFETY: as above.
        unsafe { SHARED.release(block as *mut c_void, 200) };
        SHARED.trim();
    }

    /// The reader a higher layer installs, as the host builder's does
    /// (unit tests may name `config`).
    fn from_config() -> PoolSwitches {
        let switches = crate::config::ProcessSwitches::from_env();
        PoolSwitches {
            packet_pool: switches.packet_pool,
            preload: switches.preload,
        }
    }

    #[test]
    fn the_global_pool_is_off_under_a_custom_allocator_or_checker() {
        // Only what can be checked from inside this process: the decision
        // matches the rules.
        read_switches_with(from_config);
        // SAFETY: from `allocate`, released once.
        unsafe { release(allocate(100), 100) };
        let expected = wanted(&from_config());
        assert!(!pooling() || expected);
    }

    #[test]
    fn the_switch_or_a_checker_keeps_the_pool_off() {
        let switches = |packet_pool, preload: Option<&str>| PoolSwitches {
            packet_pool,
            preload: preload.map(String::from),
        };
        assert!(!wanted(&switches(false, None)));
        let memcheck = "/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so";
        assert!(!wanted(&switches(true, Some(memcheck))));
        assert_eq!(
            wanted(&switches(true, None)),
            hooks::default_allocator() && !checker::memory_checked(None)
        );
    }

    #[test]
    fn undecided_blocks_are_as_large_as_their_class() {
        assert_eq!(undecided_size(1), 128);
        assert_eq!(undecided_size(128), 128);
        assert_eq!(undecided_size(129), 256);
        assert_eq!(undecided_size(2048), 2048);
        // Larger than every class: never kept, so not rounded.
        assert_eq!(undecided_size(2049), 2049);
    }

    #[test]
    fn the_first_decision_stands_and_switching_off_wins() {
        let state = AtomicU8::new(UNDECIDED);
        assert!(decide_in(&state, true));
        assert!(decide_in(&state, false), "decided already");
        state.store(OFF, Ordering::Release);
        assert!(!decide_in(&state, true));
        let state = AtomicU8::new(UNDECIDED);
        assert!(!decide_in(&state, false));
        assert_eq!(state.load(Ordering::Acquire), OFF);
    }
}
