//! The request queue's lock on Unix: a pthread mutex rather than
//! `std::sync::Mutex`, so that ThreadSanitizer and helgrind, which watch
//! pthread calls, see the order it gives between a sender's writes (the
//! packet it filled) and the service thread's reads.

use core::cell::UnsafeCell;

/// A value only reached with the lock held.
pub struct Lock<T> {
    /// Boxed: a pthread mutex must not move once used.
    mutex: Box<UnsafeCell<libc::pthread_mutex_t>>,
    value: UnsafeCell<T>,
}

// SAFETY: the value is only reached with the mutex held (see `with`), so
// moving the lock or sharing it between threads hands the value from one
// thread to another, which `T: Send` allows.
unsafe impl<T: Send> Send for Lock<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Lock<T> {}

impl<T> Lock<T> {
    pub fn new(value: T) -> Self {
        Lock {
            mutex: Box::new(UnsafeCell::new(libc::PTHREAD_MUTEX_INITIALIZER)),
            value: UnsafeCell::new(value),
        }
    }

    /// Runs `f` on the value with the lock held.
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        /// Unlocks when dropped, so a panic in `f` cannot leave it held.
        struct Held<'a>(&'a UnsafeCell<libc::pthread_mutex_t>);
        impl Drop for Held<'_> {
            fn drop(&mut self) {
                // SAFETY: locked by this thread in `with`, below.
                unsafe { libc::pthread_mutex_unlock(self.0.get()) };
            }
        }
        // SAFETY: the mutex was initialized statically and never moves
        // (boxed); it is unlocked by `Held` on this thread.
        unsafe { libc::pthread_mutex_lock(self.mutex.get()) };
        let _held = Held(&self.mutex);
        // SAFETY: the lock is held, so no other reference to the value
        // exists until it is released.
        f(unsafe { &mut *self.value.get() })
    }
}

impl<T> Drop for Lock<T> {
    fn drop(&mut self) {
        // SAFETY: no one else holds the lock any more (we own it), so the
        // mutex is unlocked and unused.
        unsafe { libc::pthread_mutex_destroy(self.mutex.get()) };
    }
}
