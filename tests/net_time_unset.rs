//! Before any `enet_time_set`, stock ENet's clock reads the wall clock in
//! milliseconds mod 2^32; ours starts there too (then advances
//! monotonically). A test binary of its own, so nothing sets the base first.

use std::time::{SystemTime, UNIX_EPOCH};

use enet::ffi::time::enet_time_get;

fn wall_ms() -> u32 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u32
}

#[test]
fn unset_clock_reads_wall_milliseconds() {
    let before = wall_ms();
    let reading = enet_time_get();
    let after = wall_ms();
    // Wrap-aware: before - 5 <= reading <= after + 5.
    let low = before.wrapping_sub(5);
    assert!(
        reading.wrapping_sub(low) <= after.wrapping_add(5).wrapping_sub(low),
        "{before} {reading} {after}"
    );
}
