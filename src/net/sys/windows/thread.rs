//! Which thread is running: the address of a thread-local variable, which
//! each live thread has its own of (a DLL's thread-local variables cost no
//! extra page of code on Windows).

use core::cell::Cell;

thread_local! {
    /// Never read: its address is the thread's name.
    static MARK: Cell<u8> = const { Cell::new(0) };
}

/// A word naming the calling thread, never 0, different from every other
/// live thread's.
#[inline]
pub fn current_thread() -> usize {
    MARK.with(|mark| mark as *const Cell<u8> as usize)
}
