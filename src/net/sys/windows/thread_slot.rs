//! One pointer per thread: a DLL's thread-local variables cost no extra
//! page of code on Windows, so this is Rust's own `thread_local!`.

use core::cell::Cell;
use core::ptr;

thread_local! {
    /// The cell of the `ThreadSlot` (the library has one) of this thread.
    static CELL: Cell<*const ()> = const { Cell::new(ptr::null()) };
}

/// A pointer-sized value per thread, NULL until the thread sets it.
pub struct ThreadSlot {
    _one: (),
}

impl ThreadSlot {
    pub const fn new() -> Self {
        ThreadSlot { _one: () }
    }

    /// This thread's cell.
    pub fn cell(&self) -> &Cell<*const ()> {
        // SAFETY: a thread-local lives until its thread ends, after its
        // last call; the reference is used within one call.
        CELL.with(|cell| unsafe { &*(cell as *const Cell<*const ()>) })
    }
}

impl Default for ThreadSlot {
    fn default() -> Self {
        Self::new()
    }
}
