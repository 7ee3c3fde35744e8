//! Giving the C heap's free pages back once many peers' queues are gone.
//!
//! A burst of connects gives thousands of peers their command queues at
//! once, and each peer gives them back a second after its last payload
//! (`proto::peer::IDLE_RELEASE_MS`). The freed queues leave the heap
//! (glibc's `malloc`, which Rust's allocator also uses) full of holes
//! between the peers' long-lived allocations, and `free` returns only the
//! heap's top to the system. So when the number of live queue sets has
//! fallen well below its peak, the heap's free pages are given back
//! ([`hooks::give_back_free_pages`]). Steady traffic, whose queue sets
//! come and go without a net decline, never triggers it.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::hooks;

/// Queue sets alive now, and the most alive since the last give-back.
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// How far below its peak the live count must fall: a few hundred peers'
/// queues are hundreds of KiB of holes, worth one `malloc_trim`.
const DECLINE: usize = 512;

/// Held by each live set of a peer's command queues; counts it.
#[derive(Debug)]
pub struct QueueSetAlive(());

impl Default for QueueSetAlive {
    fn default() -> Self {
        let live = LIVE.fetch_add(1, Ordering::Relaxed) + 1;
        PEAK.fetch_max(live, Ordering::Relaxed);
        QueueSetAlive(())
    }
}

impl Drop for QueueSetAlive {
    fn drop(&mut self) {
        let live = LIVE.fetch_sub(1, Ordering::Relaxed) - 1;
        let peak = PEAK.load(Ordering::Relaxed);
        if peak >= live + DECLINE
            && PEAK
                .compare_exchange(peak, live, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            hooks::give_back_free_pages();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peak_follows_the_live_count_down_in_steps() {
        // Other tests make queue sets too; only this test's effect on the
        // count is checked.
        let before = LIVE.load(Ordering::Relaxed);
        let sets: Vec<QueueSetAlive> = (0..DECLINE + 10)
            .map(|_| QueueSetAlive::default())
            .collect();
        assert!(PEAK.load(Ordering::Relaxed) >= before + DECLINE + 10);
        drop(sets);
        assert!(PEAK.load(Ordering::Relaxed) < before + DECLINE + 10);
    }
}
