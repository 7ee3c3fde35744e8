//! One pointer per thread: a DLL's thread-local variables cost no extra
//! page of code on Windows, so this is Rust's own `thread_local!`.

use core::cell::Cell;
use core::ptr;

thread_local! {
    /// Every `ThreadSlot`'s value of this thread, by slot address.
    static SLOTS: Cell<*const ()> = const { Cell::new(ptr::null()) };
}

/// A pointer-sized value per thread, NULL until the thread sets it. The
/// library has one (`ffi::busy`), so the slots share one variable.
pub struct ThreadSlot {
    _one: (),
}

impl ThreadSlot {
    pub const fn new() -> Self {
        ThreadSlot { _one: () }
    }

    /// This thread's value.
    pub fn get(&self) -> *const () {
        SLOTS.get()
    }

    /// Sets this thread's value.
    pub fn set(&self, value: *const ()) {
        SLOTS.set(value)
    }
}

impl Default for ThreadSlot {
    fn default() -> Self {
        Self::new()
    }
}
