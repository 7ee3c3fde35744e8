//! Which peers the send pass must visit.
//!
//! Stock ENet walks every peer slot on every service call. We visit only
//! peers that are *ready* (they have acknowledgements or commands queued)
//! or whose *timer* is due, so a host with thousands of idle peers does
//! work proportional to the few that need it.
//!
//! Each peer has a small table of deadlines, one per reason to visit it
//! ([`Timer`]); the heap holds each peer once, at its table's earliest.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::peer_index::{PeerIndex, SlotEntry, SlotVec};
use super::scratch;
use crate::time::time_less;

/// Why the send pass must visit a peer at a given time: the index into
/// its [`TimerTable`]. When two come at the same time the first listed
/// counts as the earliest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Timer {
    /// The retransmission timeout: resend what timed out, or give up on
    /// the peer.
    Retransmission,
    /// Loss recovery's own deadline for a copy of a command in flight
    /// (only while copies stand in for per-command deadlines).
    LossProbe,
    /// The next ping; armed only while nothing is in flight, as stock
    /// pings only then.
    Ping,
    /// Commands held back by pacing alone: look again a millisecond later.
    Pacing,
}

impl Timer {
    const COUNT: usize = 4;
}

/// One peer's deadlines (engine time), indexed by [`Timer`]; kept small,
/// as a host holds one per peer slot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TimerTable {
    at: [u32; Timer::COUNT],
    /// Bit `timer as usize` set: that deadline is armed.
    armed: u8,
}

impl TimerTable {
    /// Arms `timer` at `deadline`, or disarms it with `None`.
    #[inline]
    pub fn set(&mut self, timer: Timer, deadline: Option<u32>) {
        let bit = 1 << timer as usize;
        match deadline {
            Some(at) => {
                self.at[timer as usize] = at;
                self.armed |= bit;
            }
            None => self.armed &= !bit,
        }
    }

    #[cfg(test)]
    pub fn get(&self, timer: Timer) -> Option<u32> {
        (self.armed & (1 << timer as usize) != 0).then(|| self.at[timer as usize])
    }

    /// Whether no timer is armed.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.armed == 0
    }

    /// The earliest armed deadline, `None` with none armed; visits the
    /// armed entries only, in [`Timer`] order.
    #[inline]
    fn earliest(&self) -> Option<u32> {
        let mut armed = self.armed;
        if armed == 0 {
            return None;
        }
        let mut earliest = self.at[armed.trailing_zeros() as usize];
        armed &= armed - 1;
        while armed != 0 {
            let at = self.at[armed.trailing_zeros() as usize];
            if time_less(at, earliest) {
                earliest = at;
            }
            armed &= armed - 1;
        }
        Some(earliest)
    }
}

/// Extends the engine's wrapping `u32` millisecond clock to a monotonic
/// `u64`, so deadlines order correctly across the 49-day wrap.
#[derive(Debug, Clone, Copy)]
struct Clock {
    last: u32,
    extended: u64,
}

impl Clock {
    fn advance(&mut self, now: u32) -> u64 {
        let forward = now.wrapping_sub(self.last);
        // Less than half the range ahead: time moved forward. Anything else
        // is a step back (`enet_time_set`): the extended clock stays where
        // it is, but later readings count from the new value, so timers
        // keep their remaining delays instead of waiting for the old time.
        if forward < 1 << 31 {
            self.extended += u64::from(forward);
        }
        self.last = now;
        self.extended
    }

    /// The extended form of `deadline`, read relative to `now`.
    fn extend(&self, now_extended: u64, now: u32, deadline: u32) -> u64 {
        let delta = deadline.wrapping_sub(now) as i32;
        now_extended.saturating_add_signed(i64::from(delta))
    }
}

/// A slot's [`Schedule::flags`]: it is in the ready list.
const READY: u8 = 1;
/// A slot's [`Schedule::flags`]: it has a live timer, at its `timer_at`.
const ARMED: u8 = 2;

/// A slot's [`Schedule::flags`], only while stale timers are compacted
/// away: its live entry is already kept.
const KEPT: u8 = 4;

/// The low 32 bits of an extended time: what [`Schedule::timer_at`] keeps.
///
/// Two extended times with the same low bits are 2^32 ms (49 days) apart,
/// while a deadline is set less than 2^31 ms ahead (the engine's are
/// within a day, `TIME_OVERFLOW`), and every send pass pops the entries
/// that are due. So the low bits can confuse two deadlines only on a host
/// that has had no send pass for 2^31 ms or more, and then in one of two
/// ways: a stale entry 2^32 ms older than the live deadline pops as if it
/// were that one, or a new deadline 2^32 ms after the armed one is taken
/// for it and not pushed.
/// Either way the entry that fires is the earlier one, and the cost is one
/// early visit, which makes the peer's timers afresh from its state.
fn low_bits(at: u64) -> u32 {
    at as u32
}

#[derive(Debug)]
pub struct Schedule {
    ready: Vec<PeerIndex>,
    /// Each slot's [`READY`] and [`ARMED`] bits.
    flags: SlotVec<u8>,
    /// Each peer's visit, as its extended deadline over its slot.
    timers: BinaryHeap<Reverse<SlotEntry>>,
    /// The live heap key of each [`ARMED`] peer (its [`low_bits`]), the
    /// earliest deadline of the table its last visit set; heap entries that
    /// disagree are stale. The tables themselves are not kept: each visit
    /// makes the peer's table afresh from its state, and the heap needs
    /// only the earliest (a table per slot would be 20 bytes a peer that
    /// nothing reads). The low bits suffice to tell the live entry, in
    /// half the memory of the whole extended time.
    timer_at: SlotVec<u32>,
    clock: Clock,
    /// Calls to [`Schedule::mark_ready`], wrapping, and their count when
    /// the last send pass ended: while they differ, a pass has work that
    /// came after the last one (see [`Schedule::marked_since_pass`]).
    marks: u32,
    marks_at_pass: u32,
}

impl Schedule {
    pub fn new(peer_count: usize, now: u32) -> Self {
        Schedule {
            ready: Vec::new(),
            flags: SlotVec::filled(peer_count, 0),
            timers: BinaryHeap::new(),
            timer_at: SlotVec::filled(peer_count, 0),
            clock: Clock {
                last: now,
                extended: 1 << 32,
            },
            marks: 0,
            marks_at_pass: 0,
        }
    }

    /// The peer has something to send: visit it on the next send pass.
    pub fn mark_ready(&mut self, peer: PeerIndex) {
        self.marks = self.marks.wrapping_add(1);
        if let Some(flags) = self.flags.get_mut(peer) {
            if *flags & READY == 0 {
                *flags |= READY;
                self.ready.push(peer);
            }
        }
    }

    /// A send pass ended: the peers ready now are those it left waiting
    /// (a full window waits for acknowledgements, not for time).
    pub fn pass_ended(&mut self) {
        self.marks_at_pass = self.marks;
    }

    /// Whether a peer was marked ready since the last send pass ended: the
    /// program queued something, or a step after the pass asked for a
    /// visit, so the next pass has work now.
    pub fn marked_since_pass(&self) -> bool {
        self.marks != self.marks_at_pass
    }

    /// Replaces the peer's deadlines with `table`: visit it at the earliest
    /// one, and no sooner than a millisecond from `now` (a deadline already
    /// passed, and not served by this pass, would spin).
    #[inline]
    pub fn set_timers(&mut self, peer: PeerIndex, now: u32, table: TimerTable) {
        let soonest = now.wrapping_add(1);
        let deadline = match table.earliest() {
            Some(deadline) if time_less(deadline, soonest) => soonest,
            Some(deadline) => deadline,
            None => return self.cancel_timers(peer),
        };
        self.set_timer(peer, now, deadline);
    }

    /// Visit the peer once `deadline` (engine time) has come.
    #[inline]
    fn set_timer(&mut self, peer: PeerIndex, now: u32, deadline: u32) {
        let now_extended = self.clock.advance(now);
        let at = self.clock.extend(now_extended, now, deadline);
        if let (Some(flags), Some(live)) = (self.flags.get_mut(peer), self.timer_at.get_mut(peer)) {
            if *flags & ARMED == 0 || *live != low_bits(at) {
                *flags |= ARMED;
                *live = low_bits(at);
                if self.timers.len() == self.timers.capacity() {
                    // A quarter more, up to the most the heap can hold.
                    let room = (self.timers.len() / 4 + 16)
                        .min(self.stale_limit() + 1 - self.timers.len())
                        .max(1);
                    self.timers.reserve_exact(room);
                }
                self.timers.push(Reverse(SlotEntry::new(at, peer)));
            }
        }
        // Replaced timers leave stale entries behind; compact them away
        // once the heap holds more than 1.5 entries a slot (and 64). The
        // growth above stops there too, where doubling would take a heap
        // with a timer for every peer to 2 or 4 entries a slot.
        if self.timers.len() > self.stale_limit() {
            self.compact_timers();
        }
    }

    /// The heap length past which stale entries are compacted away; the
    /// heap never holds more than one entry over it.
    fn stale_limit(&self) -> usize {
        let slots = self.timer_at.len();
        slots + slots / 2 + 64
    }

    /// Drops every stale heap entry, and all but one of a live deadline's
    /// entries (a peer whose deadline went A, B, A has two).
    #[cold]
    fn compact_timers(&mut self) {
        let mut entries = core::mem::take(&mut self.timers).into_vec();
        entries.retain(|&Reverse(entry)| {
            let slot = entry.slot();
            let keep = self.is_live(entry) && self.flags[slot] & KEPT == 0;
            if keep {
                self.flags[slot] |= KEPT;
            }
            keep
        });
        for &Reverse(entry) in &entries {
            self.flags[entry.slot()] &= !KEPT;
        }
        self.timers = entries.into();
    }

    /// Whether `entry` is its peer's live timer.
    fn is_live(&self, entry: SlotEntry) -> bool {
        let slot = entry.slot();
        self.flags[slot] & ARMED != 0 && self.timer_at[slot] == low_bits(entry.value())
    }

    /// Disarms every timer of the peer.
    pub fn cancel_timers(&mut self, peer: PeerIndex) {
        if let Some(flags) = self.flags.get_mut(peer) {
            *flags &= !ARMED;
        }
    }

    /// Moves every ready peer and every peer whose timer is due at `now`
    /// into `out`, in slot order (stock visits slots in order).
    pub fn take_due(&mut self, now: u32, out: &mut Vec<PeerIndex>) {
        let now_extended = self.clock.advance(now);
        out.clear();
        let ready = self.ready.len();
        for peer in self.ready.drain(..) {
            self.flags[peer] &= !READY;
            out.push(peer);
        }
        scratch::fit_to_use(&mut self.ready, ready);
        while let Some(Reverse(entry)) = self.timers.peek().copied() {
            let (at, peer) = (entry.value(), entry.slot());
            if at > now_extended {
                break;
            }
            self.timers.pop();
            if self.is_live(entry) {
                // Its table stays as it was until the pass, which visits
                // every peer it returns, sets the next one.
                self.flags[peer] &= !ARMED;
                out.push(peer);
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    /// Whether [`Schedule::take_due`] at `now` would return no peer and
    /// change nothing but the clock: no peer ready, the ready list at its
    /// kept size, and no timer at or before `now` (a stale one counts:
    /// the pass drops it). Advances the clock as `take_due` does.
    #[inline]
    pub fn nothing_due(&mut self, now: u32) -> bool {
        let now_extended = self.clock.advance(now);
        self.ready.is_empty()
            && scratch::fits_unused(&self.ready)
            && self
                .timers
                .peek()
                .is_none_or(|Reverse(entry)| entry.value() > now_extended)
    }

    /// Milliseconds from `now` until the earliest timer; `None` if none is
    /// set. Ready peers do not count: what they hold after a send pass is
    /// waiting for acknowledgements (a receive) or a timer, and counting
    /// them would make a caller spin.
    pub fn time_until_next(&mut self, now: u32) -> Option<u32> {
        let now_extended = self.clock.advance(now);
        while let Some(Reverse(entry)) = self.timers.peek().copied() {
            let at = entry.value();
            if self.is_live(entry) {
                return Some(at.saturating_sub(now_extended).min(u64::from(u32::MAX)) as u32);
            }
            self.timers.pop();
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(slot: usize) -> PeerIndex {
        PeerIndex::for_tests(slot)
    }

    fn peers(slots: &[usize]) -> Vec<PeerIndex> {
        slots.iter().copied().map(PeerIndex::for_tests).collect()
    }

    #[test]
    fn marks_after_a_pass_are_work_for_the_next_one() {
        let mut schedule = Schedule::new(4, 1000);
        assert!(!schedule.marked_since_pass());
        schedule.mark_ready(peer(1));
        assert!(schedule.marked_since_pass());
        let mut due = Vec::new();
        schedule.take_due(1000, &mut due);
        // The pass leaves the peer ready (its window is full, say).
        schedule.mark_ready(peer(1));
        schedule.pass_ended();
        assert!(!schedule.marked_since_pass());
        // Marking it again, though it is in the list already, is new work.
        schedule.mark_ready(peer(1));
        assert!(schedule.marked_since_pass());
    }

    #[test]
    fn nothing_is_due_only_when_a_pass_would_take_no_peer() {
        let mut schedule = Schedule::new(8, 1000);
        let mut due = Vec::new();
        assert!(schedule.nothing_due(1000));
        schedule.mark_ready(peer(3));
        assert!(!schedule.nothing_due(1000), "a ready peer");
        schedule.take_due(1000, &mut due);
        assert!(schedule.nothing_due(1000));
        schedule.set_timer(peer(4), 1000, 1050);
        assert!(schedule.nothing_due(1049));
        assert!(!schedule.nothing_due(1050), "a timer at now");
        // Set again, the earlier entry is stale; it still counts (the pass
        // drops it), and after that pass nothing is due until the new one.
        schedule.set_timer(peer(4), 1000, 1200);
        assert!(!schedule.nothing_due(1100));
        schedule.take_due(1100, &mut due);
        assert!(due.is_empty(), "{due:?}");
        assert!(schedule.nothing_due(1100));
        assert!(!schedule.nothing_due(1200));
        schedule.take_due(1200, &mut due);
        assert_eq!(due, peers(&[4]));
        // An emptied ready list a burst grew, until a pass gives it back.
        schedule.ready.reserve(4000);
        assert!(!schedule.nothing_due(1300), "a list to give back");
        schedule.take_due(1300, &mut due);
        assert!(schedule.nothing_due(1300));
    }

    #[test]
    fn ready_and_due_peers_come_out_in_slot_order() {
        let mut schedule = Schedule::new(8, 1000);
        schedule.mark_ready(peer(5));
        schedule.mark_ready(peer(2));
        schedule.mark_ready(peer(5));
        schedule.set_timer(peer(7), 1000, 1100);
        schedule.set_timer(peer(1), 1000, 1050);
        let mut due = Vec::new();
        assert_eq!(schedule.time_until_next(1000), Some(50));
        schedule.take_due(1000, &mut due);
        assert_eq!(due, peers(&[2, 5]));
        assert_eq!(schedule.time_until_next(1000), Some(50));
        schedule.take_due(1060, &mut due);
        assert_eq!(due, peers(&[1]));
        schedule.take_due(1200, &mut due);
        assert_eq!(due, peers(&[7]));
        assert_eq!(schedule.time_until_next(1200), None);
    }

    #[test]
    fn the_ready_list_gives_back_a_burst_once_passes_need_little() {
        let mut schedule = Schedule::new(4000, 0);
        let mut due = Vec::new();
        for slot in 0..4000 {
            schedule.mark_ready(peer(slot));
        }
        schedule.take_due(0, &mut due);
        assert_eq!(due.len(), 4000);
        assert!(
            schedule.ready.capacity() >= 4000,
            "the pass that needed it keeps it"
        );
        schedule.mark_ready(peer(7));
        schedule.take_due(1, &mut due);
        assert_eq!(due, peers(&[7]));
        assert!(
            schedule.ready.capacity() <= 128,
            "{}",
            schedule.ready.capacity()
        );
    }

    #[test]
    fn timers_order_across_the_u32_wrap() {
        let start = u32::MAX - 100;
        let mut schedule = Schedule::new(4, start);
        schedule.set_timer(peer(0), start, start.wrapping_add(300)); // after the wrap
        schedule.set_timer(peer(1), start, start + 50); // before it
        let mut due = Vec::new();
        schedule.take_due(start + 60, &mut due);
        assert_eq!(due, peers(&[1]));
        schedule.take_due(start.wrapping_add(200), &mut due);
        assert!(due.is_empty());
        schedule.take_due(start.wrapping_add(301), &mut due);
        assert_eq!(due, peers(&[0]));
    }

    #[test]
    fn a_host_whose_every_peer_has_a_timer_keeps_a_heap_near_its_slots() {
        let slots = 4000;
        let mut schedule = Schedule::new(slots, 0);
        // Every peer's deadline moves ten times, as acknowledgements move
        // retransmission timers.
        for round in 0..10 {
            for slot in 0..slots {
                schedule.set_timer(peer(slot), 0, 1000 + round);
            }
        }
        let limit = schedule.stale_limit();
        assert!(schedule.timers.len() <= limit);
        assert!(
            schedule.timers.capacity() <= limit + 1,
            "{} entries' room for {slots} slots",
            schedule.timers.capacity()
        );
        let mut due = Vec::new();
        schedule.take_due(1009, &mut due);
        assert_eq!(due.len(), slots);
        assert!(schedule.timers.is_empty());
    }

    #[test]
    fn stale_entries_are_compacted() {
        let mut schedule = Schedule::new(2, 0);
        for deadline in 1..10_000 {
            schedule.set_timer(peer(0), 0, deadline);
        }
        assert!(schedule.timers.len() <= schedule.stale_limit() + 1);
        let mut due = Vec::new();
        schedule.take_due(9_998, &mut due);
        assert!(due.is_empty());
        schedule.take_due(9_999, &mut due);
        assert_eq!(due, peers(&[0]));
    }

    #[test]
    fn a_deadline_set_again_is_kept_once_by_the_compaction() {
        let mut schedule = Schedule::new(2, 0);
        // Each return to 200 pushes another entry equal to the live one.
        for round in 0..12 {
            schedule.set_timer(peer(0), 0, if round % 2 == 0 { 100 } else { 200 });
        }
        schedule.compact_timers();
        assert_eq!(schedule.timers.len(), 1, "{:?}", schedule.timers);
        let mut due = Vec::new();
        schedule.take_due(150, &mut due);
        assert!(due.is_empty(), "the live deadline is 200");
        schedule.take_due(200, &mut due);
        assert_eq!(due, peers(&[0]));
        assert_eq!(schedule.time_until_next(200), None);
        assert!(schedule.timers.is_empty(), "{:?}", schedule.timers);
    }

    /// Lets 2^32 ms pass with no send pass: only peer 1's timer is set,
    /// each time a quarter of the range later. Returns the time, `0` again.
    fn pass_49_days_without_a_send_pass(schedule: &mut Schedule) -> u32 {
        let mut now = 0u32;
        for _ in 0..4 {
            now = now.wrapping_add(1 << 30);
            schedule.set_timer(peer(1), now, now.wrapping_add(1));
        }
        now
    }

    /// Peer 0's timer, set for 100 at `now` (0 again, 2^32 ms on), fires at
    /// once from an older entry; set afresh by that visit, it keeps its
    /// time.
    fn assert_one_early_visit(schedule: &mut Schedule, now: u32) {
        schedule.set_timer(peer(0), now, 100);
        let mut due = Vec::new();
        schedule.take_due(now, &mut due);
        assert_eq!(due, peers(&[0]), "the older entry visits it early");
        schedule.set_timer(peer(0), now, 100);
        schedule.take_due(99, &mut due);
        assert_eq!(due, peers(&[1]));
        schedule.take_due(100, &mut due);
        assert_eq!(due, peers(&[0]));
    }

    #[test]
    fn a_deadline_49_days_after_the_armed_one_costs_one_early_visit() {
        let mut schedule = Schedule::new(2, 0);
        schedule.set_timer(peer(0), 0, 100);
        let now = pass_49_days_without_a_send_pass(&mut schedule);
        // The same low bits as the armed deadline: taken for it, not pushed.
        assert_one_early_visit(&mut schedule, now);
    }

    #[test]
    fn a_stale_entry_49_days_older_than_the_live_one_costs_one_early_visit() {
        let mut schedule = Schedule::new(2, 0);
        schedule.set_timer(peer(0), 0, 100);
        schedule.set_timer(peer(0), 0, 200); // the entry at 100 is stale
        let now = pass_49_days_without_a_send_pass(&mut schedule);
        // Pushed, but the stale entry shares its low bits and pops first.
        assert_one_early_visit(&mut schedule, now);
    }

    #[test]
    fn a_clock_set_back_keeps_timers_running() {
        let mut schedule = Schedule::new(1, 1_000_000);
        schedule.set_timer(peer(0), 1_000_000, 1_000_500);
        // enet_time_set(1000): the timer still fires 500 ms later.
        let mut due = Vec::new();
        schedule.take_due(1_000, &mut due);
        assert!(due.is_empty());
        schedule.take_due(1_499, &mut due);
        assert!(due.is_empty());
        schedule.take_due(1_500, &mut due);
        assert_eq!(due, peers(&[0]));
    }

    fn table(entries: &[(Timer, u32)]) -> TimerTable {
        let mut table = TimerTable::default();
        for &(timer, at) in entries {
            table.set(timer, Some(at));
        }
        table
    }

    #[test]
    fn a_peer_is_visited_at_its_earliest_deadline() {
        let mut schedule = Schedule::new(2, 1000);
        let timers = table(&[(Timer::Retransmission, 1300), (Timer::LossProbe, 1120)]);
        assert_eq!(timers.get(Timer::Retransmission), Some(1300));
        assert_eq!(timers.get(Timer::Ping), None);
        schedule.set_timers(peer(0), 1000, timers);
        assert_eq!(schedule.time_until_next(1000), Some(120));
        let mut due = Vec::new();
        schedule.take_due(1119, &mut due);
        assert!(due.is_empty());
        schedule.take_due(1120, &mut due);
        assert_eq!(due, peers(&[0]));
        assert_eq!(schedule.time_until_next(1120), None);
    }

    #[test]
    fn a_passed_deadline_is_looked_at_a_millisecond_later() {
        let mut schedule = Schedule::new(1, 1000);
        schedule.set_timers(peer(0), 1000, table(&[(Timer::Ping, 900)]));
        assert_eq!(schedule.time_until_next(1000), Some(1));
        schedule.set_timers(peer(0), 1000, TimerTable::default());
        assert_eq!(schedule.time_until_next(1000), None);
    }

    #[test]
    fn deadlines_compare_across_the_u32_wrap() {
        let now = u32::MAX - 10;
        let timers = table(&[(Timer::Retransmission, 20), (Timer::Pacing, now + 5)]);
        assert_eq!(timers.earliest(), Some(now + 5));
        assert_eq!(core::mem::size_of::<TimerTable>(), 20);
    }

    #[test]
    fn a_replaced_timer_fires_once_at_its_new_time() {
        let mut schedule = Schedule::new(2, 0);
        schedule.set_timer(peer(0), 0, 100);
        schedule.set_timer(peer(0), 0, 40);
        schedule.cancel_timers(peer(1));
        let mut due = Vec::new();
        schedule.take_due(50, &mut due);
        assert_eq!(due, peers(&[0]));
        schedule.take_due(150, &mut due);
        assert!(due.is_empty());
    }
}
