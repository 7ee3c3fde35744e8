//! The request queue's lock on Windows: the standard library's mutex (an
//! SRW lock).

use std::sync::{Mutex, PoisonError};

/// A value only reached with the lock held.
pub struct Lock<T>(Mutex<T>);

impl<T> Lock<T> {
    pub fn new(value: T) -> Self {
        Lock(Mutex::new(value))
    }

    /// Runs `f` on the value with the lock held. A panic that once
    /// happened with it held does not lock the queue for good: the
    /// requests themselves stay consistent (each push or take is whole).
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let mut value = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut value)
    }
}
