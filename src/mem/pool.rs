//! A pool of packet blocks: the memory of a destroyed packet is kept, by
//! size class, for the next packet of that class, so a message costs no
//! `malloc`/`free` pair on each side once traffic is flowing.
//!
//! A block is always a whole allocation from [`hooks::malloc`] (a packet's
//! header and its inline bytes), rounded up to its class's size while the
//! pool is on so that any block of a class can serve any packet of it.
//! Each class holds at most `CLASS_BYTES` of idle blocks; beyond that a
//! block goes straight back to `free`. [`trim`] (at `enet_deinitialize`)
//! gives every idle block back.
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
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::OnceLock;

use super::{checker, hooks};

/// Block sizes, header included: a packet of up to `size - header` bytes
/// fits. The largest covers a datagram of the default MTU.
const CLASS_SIZES: [usize; 5] = [128, 256, 512, 1024, 2048];

/// The most idle bytes each class keeps.
const CLASS_BYTES: usize = 16 * 1024;

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

/// The most idle blocks a class keeps.
const BOUNDS: [usize; CLASS_SIZES.len()] = {
    let mut bounds = [0; CLASS_SIZES.len()];
    let mut class = 0;
    while class < CLASS_SIZES.len() {
        bounds[class] = CLASS_BYTES / CLASS_SIZES[class];
        class += 1;
    }
    bounds
};

/// Room for the largest class's bound (the smallest class's).
const MOST_BLOCKS: usize = CLASS_BYTES / CLASS_SIZES[0];

/// One class's idle blocks, behind a spin lock: the critical sections are
/// a handful of instructions, where a `Mutex`'s bookkeeping (poisoning, a
/// growable list) cost as much as the `malloc` and `free` it replaced.
struct Class {
    locked: AtomicBool,
    idle: UnsafeCell<Idle>,
}

struct Idle {
    len: usize,
    blocks: [*mut c_void; MOST_BLOCKS],
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
    const fn new() -> Class {
        Class {
            locked: AtomicBool::new(false),
            idle: UnsafeCell::new(Idle {
                len: 0,
                blocks: [core::ptr::null_mut(); MOST_BLOCKS],
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
        self.len = self.len.checked_sub(1)?;
        Some(self.blocks[self.len])
    }

    /// Keeps `block` unless `bound` blocks are idle already.
    fn push(&mut self, block: *mut c_void, bound: usize) -> bool {
        if self.len >= bound {
            return false;
        }
        self.blocks[self.len] = block;
        self.len += 1;
        true
    }
}

/// Idle blocks by class.
struct Pool {
    classes: [Class; CLASS_SIZES.len()],
}

static POOL: Pool = Pool::new();

impl Pool {
    const fn new() -> Pool {
        Pool {
            classes: [const { Class::new() }; CLASS_SIZES.len()],
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
            if self.classes[class].lock().idle().push(block, BOUNDS[class]) {
                return;
            }
        }
        // SAFETY: the block came from `hooks::malloc`, through `allocate`.
        unsafe { hooks::free(block) }
    }

    fn trim(&self) {
        for class in &self.classes {
            loop {
                // One block at a time: `free` runs outside the lock.
                let Some(block) = class.lock().idle().pop() else {
                    break;
                };
                // SAFETY: idle blocks came from `hooks::malloc` and no one
                // points into them.
                unsafe { hooks::free(block) };
            }
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

    #[test]
    fn each_class_is_bounded_and_trim_empties_it() {
        let pool = Pool::new();
        let blocks: Vec<_> = (0..BOUNDS[4] + 3).map(|_| pool.allocate(2000)).collect();
        for &block in &blocks {
            // SAFETY: each from `allocate`, released once.
            unsafe { pool.release(block, 2000) };
        }
        assert_eq!(pool.idle_counts()[4], BOUNDS[4]);
        pool.trim();
        assert_eq!(pool.idle_counts(), [0; 5]);
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
