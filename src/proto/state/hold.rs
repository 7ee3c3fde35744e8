//! A host's hold on timeouts (`enet_rs_host_hold_timeouts`): a span of
//! its clock during which no peer is given up on for its silence, for a
//! program that knows it will stall (a level load, a debugger attached).
//!
//! The span is counted down in the forward steps the clock takes between
//! the host's send passes, so it may be longer than the day ENet's
//! wrapping clock can compare across, and a clock set back
//! (`enet_time_set`) neither ends it nor lengthens it. Its end is seen by
//! the first send pass at or after it, which is where the host restarts
//! the timeout clocks of its commands in flight: a program that stalled
//! past the end of its hold still gets that pass's grace.

/// How long a hold lasts, in ms, when it is to last until it is ended.
pub const UNTIL_ENDED: u32 = u32::MAX;

/// Forward steps of the clock at or beyond this are a clock set back.
const SET_BACK: u32 = 1 << 31;

/// A host's hold on timeouts, if it has one.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TimeoutHold {
    held: Option<Countdown>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Countdown {
    /// Milliseconds left; `None` until the hold is ended.
    left: Option<u32>,
    /// The clock when `left` was last counted down.
    counted_at: u32,
}

/// What a look at the hold found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HoldState {
    /// No hold.
    Free,
    /// Timeouts are held.
    Holding,
    /// The hold has just ended: restart the timeout clocks.
    Ended,
}

impl TimeoutHold {
    /// Whether a hold is set (it may have run out, unseen so far).
    #[inline]
    pub fn is_set(&self) -> bool {
        self.held.is_some()
    }

    /// Holds timeouts for `ms` from `now` ([`UNTIL_ENDED`]: until ended),
    /// replacing any hold; 0 ends it. [`HoldState::Ended`] if that ended
    /// a hold.
    pub fn hold(&mut self, now: u32, ms: u32) -> HoldState {
        if ms == 0 {
            return match self.held.take() {
                Some(_) => HoldState::Ended,
                None => HoldState::Free,
            };
        }
        let left = (ms != UNTIL_ENDED).then_some(ms);
        self.held = Some(Countdown {
            left,
            counted_at: now,
        });
        HoldState::Holding
    }

    /// Counts the hold down to `now` and says where it stands.
    pub fn advance(&mut self, now: u32) -> HoldState {
        let Some(countdown) = self.held.as_mut() else {
            return HoldState::Free;
        };
        let step = now.wrapping_sub(countdown.counted_at);
        countdown.counted_at = now;
        let Some(left) = countdown.left.as_mut() else {
            return HoldState::Holding;
        };
        if step < SET_BACK {
            *left = left.saturating_sub(step);
        }
        if *left == 0 {
            self.held = None;
            return HoldState::Ended;
        }
        HoldState::Holding
    }

    /// Milliseconds the hold has left as of its last count (`None`: none,
    /// or until ended).
    pub fn left(&self) -> Option<u32> {
        self.held.and_then(|countdown| countdown.left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hold_counts_down_and_ends_once() {
        let mut hold = TimeoutHold::default();
        assert_eq!(hold.advance(5), HoldState::Free);
        assert_eq!(hold.hold(1000, 300), HoldState::Holding);
        assert_eq!(hold.advance(1100), HoldState::Holding);
        assert_eq!(hold.left(), Some(200));
        assert_eq!(hold.advance(1299), HoldState::Holding);
        // Seen at the first look at or after its end, however late.
        assert_eq!(hold.advance(9000), HoldState::Ended);
        assert_eq!(hold.advance(9001), HoldState::Free);
        assert!(!hold.is_set());
    }

    #[test]
    fn a_hold_spans_the_clocks_wrap_and_ignores_a_clock_set_back() {
        let mut hold = TimeoutHold::default();
        hold.hold(u32::MAX - 10, 100);
        assert_eq!(
            hold.advance(20),
            HoldState::Holding,
            "31 ms across the wrap"
        );
        assert_eq!(hold.left(), Some(69));
        // Set back by an hour: nothing counted, and counting goes on from
        // the new reading.
        assert_eq!(
            hold.advance(20u32.wrapping_sub(3_600_000)),
            HoldState::Holding
        );
        assert_eq!(hold.left(), Some(69));
        assert_eq!(
            hold.advance(20u32.wrapping_sub(3_600_000).wrapping_add(69)),
            HoldState::Ended
        );
    }

    #[test]
    fn a_hold_longer_than_a_day_lasts_its_length() {
        let mut hold = TimeoutHold::default();
        hold.hold(0, 3 * 86_400_000);
        let mut now = 0u32;
        for _ in 0..71 {
            now = now.wrapping_add(3_600_000);
            assert_eq!(hold.advance(now), HoldState::Holding);
        }
        now = now.wrapping_add(3_600_000);
        assert_eq!(hold.advance(now), HoldState::Ended, "after 72 hours");
    }

    #[test]
    fn until_ended_lasts_until_zero_and_zero_ends_only_a_hold() {
        let mut hold = TimeoutHold::default();
        assert_eq!(hold.hold(0, 0), HoldState::Free);
        hold.hold(0, UNTIL_ENDED);
        for now in [1u32 << 30, 1 << 31, u32::MAX, 7] {
            assert_eq!(hold.advance(now), HoldState::Holding);
        }
        assert_eq!(hold.left(), None);
        assert_eq!(hold.hold(8, 0), HoldState::Ended);
        assert_eq!(hold.advance(9), HoldState::Free);
        // A new hold replaces the old one's length.
        hold.hold(0, 10);
        hold.hold(5, 1000);
        assert_eq!(hold.advance(20), HoldState::Holding);
        assert_eq!(hold.left(), Some(985));
    }
}
