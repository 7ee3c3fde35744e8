//! One pointer per thread, through a POSIX thread-specific key. Rust's
//! `thread_local!` in a shared library reaches its variables through the
//! dynamic linker's `__tls_get_addr`, whose call stub sits in the
//! library's last page of code: a process calling into the library then
//! keeps that page's 64 KiB window resident. `pthread_getspecific` is an
//! ordinary call into the C library. The key holds each thread's own cell
//! (made on the thread's first use, freed when it exits), so setting the
//! value is a plain write, where `pthread_setspecific` would cost more.

use core::cell::Cell;
use core::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A pointer-sized value per thread, NULL until the thread sets it.
pub struct ThreadSlot {
    /// The key plus one; 0 until the first use made one.
    key: AtomicUsize,
}

/// No key could be made: no slot is available.
const NO_KEY: usize = usize::MAX;

thread_local! {
    /// The cell of the `ThreadSlot` (the library has one) when the system
    /// has no key or no memory left, never in practice.
    static FALLBACK: Cell<*const ()> = const { Cell::new(ptr::null()) };
}

/// Frees a thread's cell when the thread exits.
unsafe extern "C" fn free_cell(cell: *mut libc::c_void) {
    // SAFETY: the key's values are only cells `cell` boxed, each freed
    // once, here, when its thread ends.
    drop(unsafe { Box::from_raw(cell.cast::<Cell<*const ()>>()) });
}

impl ThreadSlot {
    pub const fn new() -> Self {
        ThreadSlot {
            key: AtomicUsize::new(0),
        }
    }

    /// The key, made on first use (`None` if the system has none left).
    #[inline]
    fn key(&self) -> Option<libc::pthread_key_t> {
        match self.key.load(Ordering::Acquire) {
            0 => self.make_key(),
            NO_KEY => None,
            known => Some((known - 1) as libc::pthread_key_t),
        }
    }

    #[cold]
    #[inline(never)]
    fn make_key(&self) -> Option<libc::pthread_key_t> {
        let mut key: libc::pthread_key_t = 0;
        // SAFETY: `key` is written by the call; `free_cell` frees what
        // `cell` stores under it.
        let made = unsafe { libc::pthread_key_create(&mut key, Some(free_cell)) } == 0;
        let mine = if made { key as usize + 1 } else { NO_KEY };
        match self
            .key
            .compare_exchange(0, mine, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => made.then_some(key),
            Err(theirs) => {
                if made {
                    // SAFETY: the key this call made, used by no one.
                    unsafe { libc::pthread_key_delete(key) };
                }
                (theirs != NO_KEY).then(|| (theirs - 1) as libc::pthread_key_t)
            }
        }
    }

    /// This thread's cell: one `pthread_getspecific`, and on the thread's
    /// first use one allocation.
    #[inline]
    pub fn cell(&self) -> &Cell<*const ()> {
        if let Some(key) = self.key() {
            // SAFETY: a key made by `pthread_key_create` and never deleted.
            let mine = unsafe { libc::pthread_getspecific(key) }.cast::<Cell<*const ()>>();
            if !mine.is_null() {
                // SAFETY: this thread's cell, boxed by `new_cell` and freed
                // only when the thread ends, after its last call.
                return unsafe { &*mine };
            }
        }
        self.new_cell()
    }

    /// This thread's cell on its first use: boxed and handed to the key.
    #[cold]
    #[inline(never)]
    fn new_cell(&self) -> &Cell<*const ()> {
        let Some(key) = self.key() else {
            return FALLBACK.with(cell_of_thread);
        };
        let cell = Box::into_raw(Box::new(Cell::new(ptr::null())));
        // SAFETY: a key made by `pthread_key_create`; the key now owns the
        // box, freed by `free_cell` when the thread ends.
        if unsafe { libc::pthread_setspecific(key, cell.cast()) } != 0 {
            // SAFETY: the box was not handed to the key.
            drop(unsafe { Box::from_raw(cell) });
            return FALLBACK.with(cell_of_thread);
        }
        // SAFETY: as above; this thread's cell until it ends.
        unsafe { &*cell }
    }
}

/// A cell of this thread's for the life of the thread's calls.
fn cell_of_thread(cell: &Cell<*const ()>) -> &'static Cell<*const ()> {
    // SAFETY: a thread-local lives until its thread ends, after its last
    // call; the reference is used within one call.
    unsafe { &*(cell as *const Cell<*const ()>) }
}

impl Default for ThreadSlot {
    fn default() -> Self {
        Self::new()
    }
}
