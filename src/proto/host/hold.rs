//! Holding timeouts (`enet_rs_host_hold_timeouts`): while a hold lasts,
//! the send pass resends timed-out commands and acknowledges as always,
//! but gives no peer up. When it ends, every command in flight has its
//! timeout clock restarted, so that a peer silent through the hold (or a
//! program that stalled through it, with acknowledgements waiting in its
//! socket) gets a full timeout from there.

use super::engine::Host;
use crate::proto::state::hold::HoldState;

impl Host {
    /// Holds timeouts for `ms` milliseconds of the host's clock from `now`
    /// (`u32::MAX`: until ended), replacing any hold; 0 ends a hold at
    /// once, restarting the timeout clocks of commands in flight.
    pub fn hold_timeouts(&mut self, now: u32, ms: u32) {
        if self.engine.hold.hold(now, ms) == HoldState::Ended {
            self.restart_timeout_clocks(now);
        }
    }

    /// Milliseconds the hold on timeouts has left as of the last service
    /// call: `None` without a hold, `Some(u32::MAX)` for one that lasts
    /// until ended.
    pub fn timeouts_held_for(&self) -> Option<u32> {
        let hold = &self.engine.hold;
        hold.is_set().then(|| {
            hold.left()
                .unwrap_or(crate::proto::state::hold::UNTIL_ENDED)
        })
    }

    /// Counts the hold down to `now`, at the start of a send pass; the
    /// pass that sees the hold's end restarts the timeout clocks first.
    #[cold]
    pub(in crate::proto::host) fn count_down_hold(&mut self, now: u32) {
        if self.engine.hold.advance(now) == HoldState::Ended {
            self.restart_timeout_clocks(now);
        }
    }

    /// Whether timeouts are held (as of the send pass's start).
    pub(in crate::proto::host) fn timeouts_held(&self) -> bool {
        self.engine.hold.is_set()
    }

    /// Restarts the timeout clock of every command in flight, on every
    /// peer, at `now` (see `PeerMut::restart_timeouts`), and sets each
    /// peer's next visit from there. Once per hold, over every slot.
    fn restart_timeout_clocks(&mut self, now: u32) {
        for index in self.peer_indices() {
            if self.engine.slots[index].sent_reliable_is_empty() {
                continue;
            }
            let engine = &mut self.engine;
            engine.slots[index].unpark(&mut engine.spare_queues);
            self.peer_view(index).restart_timeouts(now);
            self.reschedule(index, now);
        }
    }
}
