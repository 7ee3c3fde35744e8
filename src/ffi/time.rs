//! `enet_time_get`/`enet_time_set` over [`crate::net::clock`]: stock's
//! "milliseconds minus a settable base", advancing on a monotonic clock
//! so that wall-clock steps cannot break timeouts.

use crate::net::clock;

/// Milliseconds since the base set by `enet_time_set` (wrapping at 2^32);
/// before any `enet_time_set`, about the wall clock in ms mod 2^32, as
/// stock ENet.
#[no_mangle]
pub extern "C" fn enet_time_get() -> u32 {
    guard!(0, clock::now())
}

/// Makes `enet_time_get` return `newTimeBase` now and count on from there.
#[no_mangle]
pub extern "C" fn enet_time_set(newTimeBase: u32) {
    guard!((), clock::set(newTimeBase))
}
