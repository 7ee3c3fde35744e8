//! [`SecureTransport`]: the engine's transport for an encrypted host. It
//! wraps the host's own transport (the socket's): what the engine sends
//! leaves as DTLS records, what arrives is decrypted before the engine
//! sees it, and the sessions' timers shorten the host's waits.

use std::net::SocketAddr;
use std::ops::Range;
use std::time::Instant;

use super::SecureLayer;
use crate::proto::{Grouping, ServiceFailed, Transmitted, Transport};

/// See [`SecureTransport::receive`].
const DATAGRAMS_WITHOUT_PLAINTEXT: usize = 256;

/// The engine's transport over `inner`, encrypting through `layer`.
pub struct SecureTransport<'a, T> {
    inner: T,
    layer: &'a mut SecureLayer,
}

impl<'a, T: Transport> SecureTransport<'a, T> {
    pub fn new(inner: T, layer: &'a mut SecureLayer) -> Self {
        SecureTransport { inner, layer }
    }

    /// Hands the records the sessions produced to the socket; `grouping`
    /// as [`Transport::transmit`] has it (the record of an ENet datagram
    /// is paced as that datagram is, so a run of them may leave in one
    /// segmented send as the plaintext would).
    fn send_records(&mut self, grouping: Grouping) -> Result<(), ServiceFailed> {
        let SecureTransport { inner, layer } = self;
        let mut failed = false;
        layer.outbox.send_records(|to, record| {
            failed |= inner.transmit(to, record, grouping) == Transmitted::Failed;
        });
        if failed {
            Err(ServiceFailed)
        } else {
            Ok(())
        }
    }
}

impl<T: Transport> SecureTransport<'_, T> {
    /// What a wait would do without waiting (for a program's own event
    /// loop): runs the sessions' due timers and sends what they produced.
    /// Then milliseconds until the next timer, `Some(0)` if decrypted
    /// datagrams or ended sessions wait for the engine, `None` if nothing
    /// is timed.
    pub fn run_due_timers(&mut self) -> Option<u32> {
        self.layer.run_timers(Instant::now());
        // A failed send shows in the next service call, as the wait's own.
        let _ = self.flush();
        if self.layer.outbox.has_plaintext() || !self.layer.lost.is_empty() {
            return Some(0);
        }
        let now = Instant::now();
        self.layer.next_timer().map(|at| {
            let left = at.saturating_duration_since(now).as_micros().div_ceil(1000);
            u32::try_from(left).unwrap_or(u32::MAX)
        })
    }
}

/// What the engine hears of its datagram of `length` bytes that went to
/// the socket as a record: sent, with the datagram's length rather than
/// the record's, unless the socket failed.
#[cfg(feature = "ring")]
fn sent_as_record(record: Transmitted, length: usize) -> Transmitted {
    match record {
        Transmitted::Failed => Transmitted::Failed,
        _ => Transmitted::Sent(length),
    }
}

impl<T: Transport> Transport for SecureTransport<'_, T> {
    fn now(&mut self) -> u32 {
        self.inner.now()
    }

    fn receive<R>(
        &mut self,
        handle: impl FnOnce(SocketAddr, &mut [u8]) -> R,
    ) -> Result<Option<R>, ServiceFailed> {
        // Datagrams that carry no plaintext (handshakes, floods of
        // ClientHellos) end the receive phase after this many, so the
        // engine still gets to send.
        let mut handle = Some(handle);
        for _ in 0..DATAGRAMS_WITHOUT_PLAINTEXT {
            if let Some((from, range)) = self.layer.outbox.next_plaintext() {
                let Some(handle) = handle.take() else {
                    return Ok(None);
                };
                return Ok(Some(handle(from, self.layer.outbox.bytes(range))));
            }
            self.layer.outbox.tidy();
            let SecureTransport { inner, layer } = self;
            let got = inner.receive(|from, datagram| {
                // An application-data record opened outside the library,
                // where it was received, goes to the engine at once. The
                // handler is taken only for a record that opened: a
                // refused one (a replay, a forgery) leaves it for the next
                // datagram of this call.
                #[cfg(feature = "ring")]
                if let Some(opened) = layer.open(from, datagram) {
                    return match opened {
                        Some(range) => handle
                            .take()
                            .map(|handle| handle(from, &mut datagram[range])),
                        None => None,
                    };
                }
                layer.receive(from, datagram, Instant::now());
                None
            })?;
            match got {
                None => {
                    // Handshake flights answer at once.
                    self.send_records(Grouping::Alone)?;
                    return Ok(None);
                }
                Some(Some(handled)) => return Ok(Some(handled)),
                // Handshake flights answer at once.
                Some(None) => self.send_records(Grouping::Alone)?,
            }
        }
        Ok(None)
    }

    fn transmit(&mut self, to: &SocketAddr, bytes: &[u8], grouping: Grouping) -> Transmitted {
        // A datagram handed over as bytes (the engine's own go through
        // `transmit_buffer`, sealed where they lie) is sealed into the
        // layer's buffer, which the socket's batch takes instead of copying.
        #[cfg(feature = "ring")]
        if self.layer.seal(to, bytes) {
            let SecureTransport { inner, layer } = self;
            let length = layer.sealed.len();
            let record = inner.transmit_buffer(to, &mut layer.sealed, 0..length, grouping);
            return sent_as_record(record, bytes.len());
        }
        if !self.layer.send(*to, bytes, Instant::now()) {
            // Never in the clear: a datagram no session can carry is
            // dropped, as a lost one (the engine's timeouts take over).
            return Transmitted::Sent(bytes.len());
        }
        // Only this datagram's record waits here: every other path sends
        // its records at once.
        match self.send_records(grouping) {
            Ok(()) => Transmitted::Sent(bytes.len()),
            Err(ServiceFailed) => Transmitted::Failed,
        }
    }

    fn transmit_buffer(
        &mut self,
        to: &SocketAddr,
        buffer: &mut Vec<u8>,
        range: Range<usize>,
        grouping: Grouping,
    ) -> Transmitted {
        // The engine's buffer keeps room before the datagram for the
        // record's header: the record is sealed where the datagram lies,
        // and the buffer goes to the socket's batch as a plain one does.
        #[cfg(feature = "ring")]
        if let Some(record) = self.layer.seal_in_place(to, buffer, range.clone()) {
            let sent = self.inner.transmit_buffer(to, buffer, record, grouping);
            return sent_as_record(sent, range.len());
        }
        self.transmit_range(to, buffer, range, grouping)
    }

    fn flush(&mut self) -> Result<(), ServiceFailed> {
        self.send_records(Grouping::Alone)?;
        self.inner.flush()
    }

    fn wait(&mut self, ms: u32) -> Result<bool, ServiceFailed> {
        self.flush()?;
        let now = Instant::now();
        let timer_ms = self.layer.next_timer().map(|at| {
            let left = at.saturating_duration_since(now).as_millis();
            u32::try_from(left).unwrap_or(u32::MAX)
        });
        let woken = match timer_ms {
            // A session's timer comes first: wait for it, then go round
            // again however the wait ended.
            Some(left) if left < ms => {
                self.inner.wait(left.max(1))?;
                true
            }
            _ => self.inner.wait(ms)?,
        };
        self.layer.run_timers(Instant::now());
        self.flush()?;
        Ok(woken)
    }

    fn take_lost(&mut self, into: &mut Vec<SocketAddr>) {
        into.append(&mut self.layer.lost);
    }

    fn take_too_big(&mut self, into: &mut Vec<(SocketAddr, usize)>) {
        self.inner.take_too_big(into);
    }
}

/// A host's transport, encrypted or not, as one type (for callers that
/// prefer one code path to two; the C driver keeps two, so a plain host
/// runs exactly the socket transport).
pub enum MaybeSecure<'a, T> {
    Plain(T),
    Secure(SecureTransport<'a, T>),
}

impl<'a, T: Transport> MaybeSecure<'a, T> {
    /// `inner`, through `layer` if there is one.
    pub fn new(inner: T, layer: Option<&'a mut SecureLayer>) -> Self {
        match layer {
            Some(layer) => MaybeSecure::Secure(SecureTransport::new(inner, layer)),
            None => MaybeSecure::Plain(inner),
        }
    }
}

impl<T: Transport> Transport for MaybeSecure<'_, T> {
    fn now(&mut self) -> u32 {
        match self {
            MaybeSecure::Plain(inner) => inner.now(),
            MaybeSecure::Secure(secure) => secure.now(),
        }
    }

    fn receive<R>(
        &mut self,
        handle: impl FnOnce(SocketAddr, &mut [u8]) -> R,
    ) -> Result<Option<R>, ServiceFailed> {
        match self {
            MaybeSecure::Plain(inner) => inner.receive(handle),
            MaybeSecure::Secure(secure) => secure.receive(handle),
        }
    }

    fn transmit(&mut self, to: &SocketAddr, bytes: &[u8], grouping: Grouping) -> Transmitted {
        match self {
            MaybeSecure::Plain(inner) => inner.transmit(to, bytes, grouping),
            MaybeSecure::Secure(secure) => secure.transmit(to, bytes, grouping),
        }
    }

    fn transmit_buffer(
        &mut self,
        to: &SocketAddr,
        buffer: &mut Vec<u8>,
        range: Range<usize>,
        grouping: Grouping,
    ) -> Transmitted {
        match self {
            MaybeSecure::Plain(inner) => inner.transmit_buffer(to, buffer, range, grouping),
            MaybeSecure::Secure(secure) => secure.transmit_buffer(to, buffer, range, grouping),
        }
    }

    fn flush(&mut self) -> Result<(), ServiceFailed> {
        match self {
            MaybeSecure::Plain(inner) => inner.flush(),
            MaybeSecure::Secure(secure) => secure.flush(),
        }
    }

    fn wait(&mut self, ms: u32) -> Result<bool, ServiceFailed> {
        match self {
            MaybeSecure::Plain(inner) => inner.wait(ms),
            MaybeSecure::Secure(secure) => secure.wait(ms),
        }
    }

    fn take_lost(&mut self, into: &mut Vec<SocketAddr>) {
        match self {
            MaybeSecure::Plain(inner) => inner.take_lost(into),
            MaybeSecure::Secure(secure) => secure.take_lost(into),
        }
    }

    fn take_too_big(&mut self, into: &mut Vec<(SocketAddr, usize)>) {
        match self {
            MaybeSecure::Plain(inner) => inner.take_too_big(into),
            MaybeSecure::Secure(secure) => secure.take_too_big(into),
        }
    }
}
