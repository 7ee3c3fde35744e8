//! ENet's millisecond clock: `enet_time_get` / `enet_time_set`.
//!
//! Stock ENet 1.3.17 reads `gettimeofday` and subtracts a settable base, so
//! its clock is the wall clock (milliseconds since 1970, truncated to 32
//! bits) until a program calls `enet_time_set`. We keep exactly that
//! arithmetic — `now - base`, wrapping, and `set(x)` makes the next reading
//! `x` — but the readings advance on a monotonic clock instead:
//!
//! **Why monotonic:** every ENet timeout (retransmission, ping, peer
//! timeout, bandwidth throttle) is a difference of two `enet_time_get`
//! readings. When an administrator or NTP steps the wall clock back by an
//! hour, stock ENet's differences go hugely negative and peers stall until
//! the clock catches up; stepped forward, every peer times out at once.
//! A monotonic source cannot jump, so those differences stay true.
//!
//! To stay observably close to stock, the first reading of a process is
//! anchored to the wall clock (so an unset clock still reads about "wall
//! time in ms, mod 2^32", as stock does), and from then on only the elapsed
//! monotonic time is added. On Linux the monotonic source is
//! `CLOCK_BOOTTIME`, which, like the wall clock but unlike
//! `CLOCK_MONOTONIC`, keeps counting while the machine is suspended: a peer
//! that was silent through a suspend is timed out on resume, as with stock.
//!
//! The clock is process-wide and thread-safe: the anchor is taken once, and
//! the base lives in an atomic (stock's `timeBase` is a plain racy static).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use super::sys::monotonic_ms;

/// Where the clock started: the wall-clock reading in ms (mod 2^32) and
/// the monotonic reading in ms taken at the same moment.
struct Anchor {
    wall_ms: u32,
    monotonic_ms: u64,
}

static ANCHOR: OnceLock<Anchor> = OnceLock::new();

/// Subtracted from the raw reading, as stock's `timeBase`; 0 until set.
static BASE: AtomicU32 = AtomicU32::new(0);

/// The current ENet time in milliseconds: the raw reading minus the base.
pub fn now() -> u32 {
    raw_ms().wrapping_sub(BASE.load(Ordering::Relaxed))
}

/// Makes the clock read `time` now and advance from there.
pub fn set(time: u32) {
    BASE.store(raw_ms().wrapping_sub(time), Ordering::Relaxed);
}

/// Milliseconds on a wall-anchored, monotonically advancing scale.
fn raw_ms() -> u32 {
    let anchor = ANCHOR.get_or_init(|| Anchor {
        wall_ms: wall_clock_ms(),
        monotonic_ms: monotonic_ms(),
    });
    let elapsed = monotonic_ms().saturating_sub(anchor.monotonic_ms);
    // Truncation to 32 bits is ENet's wrapping clock.
    anchor.wall_ms.wrapping_add(elapsed as u32)
}

/// Wall-clock milliseconds since 1970, truncated as stock's
/// `tv_sec * 1000 + tv_usec / 1000` is.
fn wall_clock_ms() -> u32 {
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    since_epoch.as_millis() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_source_never_goes_back() {
        let mut previous = monotonic_ms();
        for _ in 0..1000 {
            let next = monotonic_ms();
            assert!(next >= previous);
            previous = next;
        }
    }

    #[test]
    fn unset_clock_reads_wall_time_like_stock() {
        // Only meaningful while the base is 0 in this test process's view:
        // compare raw readings, which `set` never changes.
        let ours = raw_ms();
        let wall = wall_clock_ms();
        assert!(wall.wrapping_sub(ours) < 1000 || ours.wrapping_sub(wall) < 1000);
    }
}
