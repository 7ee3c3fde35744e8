//! What a program's own event loop needs to know before it sleeps on a
//! host (`enet_rs_host_next_deadline_ms`): whether the engine has work
//! now, which no wait on the socket would show.

use super::engine::Host;

impl Host {
    /// Whether a service call has work now without anything arriving:
    /// events queued for dispatch, or peers marked for the send pass since
    /// the last pass ended (the program queued a send, a disconnect, or a
    /// connect completed at dispatch). Peers the last pass left waiting
    /// for acknowledgements do not count: they wait for a datagram.
    pub fn has_work_now(&self) -> bool {
        !self.engine.dispatch_queue.is_empty() || self.engine.schedule.marked_since_pass()
    }
}
