//! One pointer per thread, through a POSIX thread-specific key. Rust's
//! `thread_local!` in a shared library reaches its variables through the
//! dynamic linker's `__tls_get_addr`, whose call stub sits in the
//! library's last page of code: a process calling into the library then
//! keeps that page's 64 KiB window resident. `pthread_getspecific` is an
//! ordinary call into the C library.

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
    /// The value of the `ThreadSlot` (the library has one) when the
    /// system has no key left (they are many, so never in practice).
    static FALLBACK: Cell<*const ()> = const { Cell::new(ptr::null()) };
}

impl ThreadSlot {
    pub const fn new() -> Self {
        ThreadSlot {
            key: AtomicUsize::new(0),
        }
    }

    /// The key, made on first use (`None` if the system has none left).
    fn key(&self) -> Option<libc::pthread_key_t> {
        let known = self.key.load(Ordering::Acquire);
        if known != 0 {
            return (known != NO_KEY).then(|| (known - 1) as libc::pthread_key_t);
        }
        let mut key: libc::pthread_key_t = 0;
        // SAFETY: `key` is written by the call; no destructor is needed
        // for a plain pointer value.
        let made = unsafe { libc::pthread_key_create(&mut key, None) } == 0;
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

    /// This thread's value.
    pub fn get(&self) -> *const () {
        match self.key() {
            // SAFETY: a key made by `pthread_key_create` and never deleted.
            Some(key) => unsafe { libc::pthread_getspecific(key) }
                .cast_const()
                .cast(),
            None => FALLBACK.get(),
        }
    }

    /// Sets this thread's value.
    pub fn set(&self, value: *const ()) {
        match self.key() {
            Some(key) => {
                // SAFETY: a key made by `pthread_key_create` and never
                // deleted; the value is stored, not followed.
                unsafe { libc::pthread_setspecific(key, value.cast_mut().cast()) };
            }
            None => FALLBACK.set(value),
        }
    }
}

impl Default for ThreadSlot {
    fn default() -> Self {
        Self::new()
    }
}
