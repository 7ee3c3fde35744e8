//! Giving the C heap's free pages back once many peers' queues are gone.
//!
//! A burst of connects gives thousands of peers their command queues at
//! once, and each peer gives them back a second after its last payload
//! (`proto::peer::IDLE_RELEASE_MS`), or, if it never queued one, as soon
//! as they are blank (`proto::peer::slot::SpareQueues`, which keeps a
//! few of them, counted as alive). The freed queues leave the heap
//! (glibc's `malloc`, which Rust's allocator also uses) full of holes
//! between the peers' long-lived allocations, and `free` returns only the
//! heap's top to the system. So when the number of live queue sets has
//! fallen well below its peak, the heap's free pages are given back
//! ([`hooks::give_back_free_pages`]). Steady traffic, whose queue sets
//! come and go without a net decline, never triggers it.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::hooks;

/// Queue sets alive now, and the most alive since the last give-back.
struct Counts {
    live: AtomicUsize,
    peak: AtomicUsize,
}

static COUNTS: Counts = Counts::new();

/// How far below its peak the live count must fall: a few hundred peers'
/// queues are hundreds of KiB of holes, worth one `malloc_trim`.
const DECLINE: usize = 512;
/// A smaller fall also counts once it leaves at most an eighth of the peak
/// alive: the tail of a decline (the last few hundred peers of a burst
/// going idle) would otherwise leave up to [`DECLINE`] queue sets' holes.
const TAIL_DECLINE: usize = 64;

impl Counts {
    const fn new() -> Counts {
        Counts {
            live: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    fn born(&self) {
        let live = self.live.fetch_add(1, Ordering::Relaxed) + 1;
        self.peak.fetch_max(live, Ordering::Relaxed);
    }

    /// Counts a set gone; whether the count has now fallen [`DECLINE`]
    /// below its peak, or [`TAIL_DECLINE`] below it to an eighth of it
    /// (the peak then starts again from here).
    fn died(&self) -> bool {
        let live = self.live.fetch_sub(1, Ordering::Relaxed) - 1;
        let peak = self.peak.load(Ordering::Relaxed);
        let far_below = peak >= live + DECLINE;
        let tail = peak >= live + TAIL_DECLINE && live <= peak / 8;
        (far_below || tail)
            && self
                .peak
                .compare_exchange(peak, live, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
    }
}

/// Held by each live set of a peer's command queues; counts it.
#[derive(Debug)]
pub struct QueueSetAlive(());

impl Default for QueueSetAlive {
    fn default() -> Self {
        COUNTS.born();
        QueueSetAlive(())
    }
}

impl Drop for QueueSetAlive {
    fn drop(&mut self) {
        if COUNTS.died() {
            hooks::give_back_free_pages();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_give_back_once_the_count_falls_far_enough_below_its_peak() {
        let counts = Counts::new();
        for _ in 0..DECLINE + 10 {
            counts.born();
        }
        // Of a peak of 522, the tail rule asks first, at an eighth (65),
        // and once more 64 below that.
        let give_backs: Vec<usize> = (1..=DECLINE + 10)
            .filter(|_| counts.died())
            .map(|_| counts.live.load(Ordering::Relaxed))
            .collect();
        assert_eq!(give_backs, vec![65, 1]);
        // Coming and going without a net decline never asks again.
        for _ in 0..5000 {
            counts.born();
            assert!(!counts.died());
        }
    }

    #[test]
    fn the_tail_of_a_decline_gives_back_once_more() {
        let counts = Counts::new();
        for _ in 0..600 {
            counts.born();
        }
        let mut give_backs = Vec::new();
        for gone in 1..=600 {
            if counts.died() {
                give_backs.push(600 - gone);
            }
        }
        // At 512 below the peak of 600, then 64 below that (88), at 11.
        assert_eq!(give_backs, vec![88, 11]);
        // A small crowd coming and going never asks.
        let counts = Counts::new();
        for _ in 0..50 {
            counts.born();
        }
        for _ in 0..50 {
            assert!(
                !counts.died(),
                "50 below a peak of 50 is under the tail's 64"
            );
        }
    }
}
