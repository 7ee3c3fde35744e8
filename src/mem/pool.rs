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
//! - unless `ENET_RS_PACKET_POOL=off` (or `0`).
//!
//! Once off, the pool stays off for the process, so a block it never
//! rounded up is never taken for one it did.
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

use super::{checker, hooks};
use crate::config;

/// Block sizes, header included: a packet of up to `size - header` bytes
/// fits. The largest covers a datagram of the default MTU.
const CLASS_SIZES: [usize; 5] = [128, 256, 512, 1024, 2048];

/// The most idle bytes each class keeps.
const CLASS_BYTES: usize = 16 * 1024;

const UNDECIDED: u8 = 0;
const ON: u8 = 1;
const OFF: u8 = 2;
static STATE: AtomicU8 = AtomicU8::new(UNDECIDED);

/// Whether blocks are pooled now.
#[inline]
fn pooling() -> bool {
    match STATE.load(Ordering::Acquire) {
        ON => true,
        OFF => false,
        _ => decide(),
    }
}

/// Decides once whether this process pools (see the module's notes).
#[cold]
fn decide() -> bool {
    let wanted = wanted(&config::ProcessSwitches::from_env());
    let state = if wanted { ON } else { OFF };
    // A concurrent `switch_off` wins: it only ever moves to OFF.
    match STATE.compare_exchange(UNDECIDED, state, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => wanted,
        Err(current) => current == ON,
    }
}

/// Whether the process's switches and its allocator let it pool.
fn wanted(switches: &config::ProcessSwitches) -> bool {
    hooks::default_allocator()
        && switches.packet_pool
        && !checker::memory_checked(switches.preload.as_deref())
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

    #[inline]
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
    if pooling() {
        POOL.allocate(size)
    } else {
        hooks::malloc(size)
    }
}

/// Takes back a block from [`allocate`] that holds at least `size` bytes
/// (the caller may not know its exact size; any lower bound is safe).
///
/// # Safety
/// `block` must come from [`allocate`] and not be used again.
#[inline]
pub unsafe fn release(block: *mut c_void, size: usize) {
    if pooling() {
        // SAFETY: forwarded contract; while pooling, `allocate` rounded
        // every block of a class up to the class's size.
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

    #[test]
    fn the_global_pool_is_off_under_a_custom_allocator_or_checker() {
        // Only what can be checked from inside this process: the decision
        // matches the rules.
        let expected = wanted(&config::ProcessSwitches::from_env());
        assert!(!pooling() || expected);
    }
}
