//! `enet_time_get` / `enet_time_set`: stock's observable arithmetic
//! (readings are "now minus a settable base", wrapping at 2^32) on a clock
//! that never runs backwards, shared safely between threads.
//!
//! The clock is process-wide, so the tests that set it take a lock, and
//! they run in a test binary of their own: a real host beside them (the
//! engine binary's) would see its clock jump.

use std::sync::Mutex;
use std::thread;
use std::time::Duration;

use enet::ffi::time::{enet_time_get, enet_time_set};

static CLOCK: Mutex<()> = Mutex::new(());

/// `value` lies in `[low, high]` on the wrapping 32-bit clock.
fn within(value: u32, low: u32, high: u32) -> bool {
    value.wrapping_sub(low) <= high.wrapping_sub(low)
}

#[test]
fn set_then_get_counts_from_the_new_base() {
    let _clock = CLOCK.lock().unwrap();
    enet_time_set(1000);
    let now = enet_time_get();
    assert!(within(now, 1000, 1020), "{now}");
    thread::sleep(Duration::from_millis(50));
    let later = enet_time_get();
    assert!(within(later, 1040, 1300), "{later}");

    enet_time_set(0);
    assert!(within(enet_time_get(), 0, 20));
}

#[test]
fn readings_wrap_past_u32_max() {
    let _clock = CLOCK.lock().unwrap();
    enet_time_set(u32::MAX - 15);
    assert!(within(enet_time_get(), u32::MAX - 15, 4));
    thread::sleep(Duration::from_millis(50));
    let wrapped = enet_time_get();
    assert!(within(wrapped, 20, 300), "{wrapped}");
}

#[test]
fn readings_never_go_back_across_threads() {
    let _clock = CLOCK.lock().unwrap();
    enet_time_set(123_456_789);
    let readers: Vec<_> = (0..4)
        .map(|_| {
            thread::spawn(|| {
                let mut previous = enet_time_get();
                for _ in 0..50_000 {
                    let next = enet_time_get();
                    // A step back would show up as a huge wrapping difference.
                    assert!(next.wrapping_sub(previous) < 1000, "{previous} -> {next}");
                    previous = next;
                }
                previous
            })
        })
        .collect();
    for reader in readers {
        let last = reader.join().unwrap();
        assert!(within(last, 123_456_789, 123_456_789 + 2000), "{last}");
    }
}
