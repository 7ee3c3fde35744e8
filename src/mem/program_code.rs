//! Whether the program's own code is running inside a library call, on
//! any thread: a packet's free callback (run here), and the intercept,
//! checksum and compressor (run by the FFI). Only such code can call the
//! library while one of its calls is inside a host, so while none runs
//! anywhere, the FFI knows no peer it is handed belongs to a host this
//! thread is inside of, with one load.

use core::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Program code running now, on every thread. A thread's own increments
/// are seen by its own later loads, so a thread inside program code never
/// reads 0; other threads' only send a look down its slower path.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// The program's code running on this thread while this lasts.
pub struct ProgramCode {
    /// Not `Send`: it counts this thread's call.
    _thread: PhantomData<*const ()>,
}

impl ProgramCode {
    /// Counts a call into the program's code until the value is dropped.
    #[inline]
    pub fn enter() -> ProgramCode {
        RUNNING.fetch_add(1, Ordering::Relaxed);
        ProgramCode {
            _thread: PhantomData,
        }
    }
}

impl Drop for ProgramCode {
    #[inline]
    fn drop(&mut self) {
        RUNNING.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether program code may be running inside a library call: always
/// true on a thread that is inside some; false means none runs on this
/// thread.
#[inline]
pub fn running_anywhere() -> bool {
    RUNNING.load(Ordering::Relaxed) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_inside_program_code_sees_it_running() {
        let outer = ProgramCode::enter();
        assert!(running_anywhere());
        {
            let _inner = ProgramCode::enter();
            assert!(running_anywhere());
        }
        assert!(running_anywhere());
        drop(outer);
    }
}
