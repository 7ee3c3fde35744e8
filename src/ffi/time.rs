//! `enet_time_get`/`enet_time_set` (filled in by the socket/time work).

#[no_mangle]
pub extern "C" fn enet_time_get() -> u32 {
    0
}

#[no_mangle]
pub extern "C" fn enet_time_set(_newTimeBase: u32) {}
