//! A peer's timeouts, and holding them while the program stalls (see
//! "Long and pausable timeouts" in `docs/extensions.md`).

use std::time::Duration;

use enet::net::clock;

use crate::{Error, Host, Peer};

impl Host {
    /// Sets when `peer` is given up on for its silence, as
    /// `enet_peer_timeout` does: after `minimum` ms once its retransmission
    /// timeout has grown `limit` times, and after `maximum` ms in any case
    /// (0: ENet's default for that one). A limit of a day or more, such as
    /// `u32::MAX`, is never reached: the peer is kept for as long as it
    /// stays silent, and what it was sent is resent at most a day apart.
    pub fn set_timeout(
        &mut self,
        peer: Peer,
        limit: u32,
        minimum: u32,
        maximum: u32,
    ) -> Result<(), Error> {
        let index = self.index(peer)?;
        self.endpoint
            .with_peer(index, |view, _| view.set_timeout(limit, minimum, maximum));
        Ok(())
    }

    /// Gives no peer up for its silence for `duration` from now (a level
    /// load, a debugger attached), while the calls the program makes
    /// meanwhile send, resend and acknowledge as always; replaces any
    /// earlier hold. [`Duration::ZERO`] ends a hold; `u32::MAX` ms or more
    /// holds until ended. When the hold ends (at the first service at or
    /// after its end, or at once when ended), each reliable message in
    /// flight counts as sent then, so a peer has a full timeout from there.
    pub fn hold_timeouts(&mut self, duration: Duration) {
        let ms = u32::try_from(duration.as_millis()).unwrap_or(u32::MAX);
        // Under a millisecond is still a hold, not an end.
        let ms = if ms == 0 && !duration.is_zero() {
            1
        } else {
            ms
        };
        self.endpoint.hold_timeouts(clock::now(), ms);
    }

    /// How long timeouts stay held, as of the last service: `None`
    /// without a hold, [`Duration::MAX`] for one that lasts until ended.
    pub fn timeouts_held_for(&self) -> Option<Duration> {
        self.endpoint.timeouts_held_for().map(|ms| match ms {
            u32::MAX => Duration::MAX,
            ms => Duration::from_millis(u64::from(ms)),
        })
    }
}
