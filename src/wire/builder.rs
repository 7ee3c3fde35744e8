//! Packing commands into one outgoing datagram, the way stock ENet does
//! (protocol.c@v1.3.17 `enet_protocol_send_acknowledgements`,
//! `enet_protocol_check_outgoing_commands`, `..._send_outgoing_commands`).
//!
//! Stock's aggregation rule:
//! - the size budget is the peer's MTU, and the running size starts at 4,
//!   the full `ENetProtocolHeader`, whether or not sentTime ends up sent; the
//!   checksum slot is *not* counted (fragment sizes subtract it instead, so a
//!   datagram with a checksum may exceed the MTU by up to 4 bytes when it is
//!   filled with small commands);
//! - commands are taken in queue order while the next one (with its
//!   payload) fits in what is left; the first that does not fit ends that
//!   queue's loop (later, smaller commands of the queue are not tried) and
//!   the rest wait for the next datagram. Stock runs two such loops into one
//!   datagram, acknowledgements first, then outgoing commands (and a PING if
//!   4 bytes are left), so a command may still follow an acknowledgement
//!   that did not fit. The builder answers "does it fit" for each push; that
//!   loop policy is the caller's;
//! - at most 32 commands (`ENET_PROTOCOL_MAXIMUM_PACKET_COMMANDS`);
//! - the header gets SENT_TIME when any packed command is ACKNOWLEDGE-flagged.
//!
//! Then [`DatagramBuilder::finish`] writes the header, compresses the body if
//! that makes it strictly smaller, and fills the checksum slot.

use std::ops::Range;

use super::checksum;
use super::command::{Command, CommandFlags, CommandHeader, ConnectId};
use super::header::{DatagramHeader, MAX_HEADER_LEN, NO_PEER_ID};
use crate::abi::ENET_PROTOCOL_MAXIMUM_PACKET_COMMANDS;

/// At most this many commands go into one datagram.
pub const MAX_COMMANDS: usize = ENET_PROTOCOL_MAXIMUM_PACKET_COMMANDS as usize;

/// What stock counts for the header when filling a datagram.
const COUNTED_HEADER_LEN: usize = 4;

/// The command did not fit: the datagram is full, send it and start another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full;

/// The commands of one datagram under construction.
#[derive(Debug, Clone)]
pub struct DatagramBuilder {
    mtu: usize,
    /// Size as stock counts it: 4 for the header plus every command.
    packet_size: usize,
    command_count: usize,
    needs_sent_time: bool,
    /// [`HEADROOM`] bytes kept free for the header, then the emitted
    /// commands, uncompressed, up to `end`: an uncompressed datagram is
    /// finished where it was built, without copying. The buffer keeps its
    /// length between datagrams (commands overwrite old bytes), so pushing
    /// a command zero-fills only where the buffer is shorter than any
    /// datagram it held before.
    buffer: Vec<u8>,
    end: usize,
    /// [`HEADROOM`] bytes, then the compressed body when compression wins:
    /// the header goes before it as in `buffer`, so a compressed datagram
    /// is finished in place too.
    compressed: Vec<u8>,
}

/// Room kept before the header for a transport's own framing, so that it
/// can frame the finished datagram where it lies instead of copying it: an
/// encrypted host's DTLS record header and explicit nonce take 13 + 8.
pub const TRANSPORT_ROOM: usize = 21;

/// Room before the commands for the transport's framing and the longest
/// header.
const HEADROOM: usize = TRANSPORT_ROOM + MAX_HEADER_LEN;

/// Checksum callback: the checksum of a datagram given as consecutive parts.
pub type ChecksumFn<'f> = &'f mut dyn FnMut(&[&[u8]]) -> [u8; 4];
/// Compressor: compresses the input into the output (as long as the input)
/// and returns the compressed length, 0 on failure.
pub type CompressFn<'f> = &'f mut dyn FnMut(&[u8], &mut [u8]) -> usize;

/// Everything outside the commands that [`DatagramBuilder::finish`] needs.
pub struct Envelope<'f> {
    /// The receiver's index for us (`peer->outgoingPeerID`), 12 bits.
    pub peer_id: u16,
    /// `peer->outgoingSessionID`, 2 bits; left out while `peer_id` is
    /// [`NO_PEER_ID`], as stock does.
    pub session_id: u8,
    /// Low 16 bits of the host's service time; sent only if needed.
    pub sent_time: u16,
    /// `peer->connectID`, the checksum seed once the peer id is known.
    pub connect_id: ConnectId,
    /// The host's checksum, if it uses one.
    pub checksum: Option<ChecksumFn<'f>>,
    /// The host's compressor, if it uses one.
    pub compressor: Option<CompressFn<'f>>,
}

impl DatagramBuilder {
    /// An empty datagram for a peer with this MTU.
    pub fn new(mtu: u32) -> Self {
        DatagramBuilder {
            mtu: usize::try_from(mtu).unwrap_or(usize::MAX),
            packet_size: COUNTED_HEADER_LEN,
            command_count: 0,
            needs_sent_time: false,
            buffer: vec![0; HEADROOM],
            end: HEADROOM,
            compressed: Vec::new(),
        }
    }

    /// Bytes left under the MTU, as stock counts them.
    pub fn remaining(&self) -> usize {
        self.mtu.saturating_sub(self.packet_size)
    }

    /// Whether a command of `wire_len` bytes (payload included) would be
    /// accepted next.
    pub fn fits(&self, wire_len: usize) -> bool {
        self.command_count < MAX_COMMANDS && wire_len <= self.remaining()
    }

    /// Appends a command, or returns [`Full`] and changes nothing if it does
    /// not fit (or cannot be encoded: a payload over 65535 bytes). Stock
    /// never has such a payload here, since packets above the fragment size
    /// are fragmented.
    // Always inlined: where the caller knows the command (an
    // acknowledgement) its length and encoding fold to constants, and
    // elsewhere the call and its prologue go (about 55 instructions a
    // reliable message).
    #[inline(always)]
    pub fn push(&mut self, header: &CommandHeader, command: &Command<'_>) -> Result<(), Full> {
        let len = command.wire_len();
        if !self.fits(len) {
            return Err(Full);
        }
        let start = self.end;
        if self.buffer.len() < start + len {
            // Grown to what the datagram needs, not to a whole MTU: the
            // buffer may go to the transport, which keeps a batch of them,
            // and most datagrams are small.
            self.buffer.resize(start + len, 0);
        }
        let written = match self.buffer.get_mut(start..start + len) {
            Some(out) => command.emit(header, out),
            None => 0,
        };
        if written != len {
            // Nothing was committed: `end` still ends the datagram.
            return Err(Full);
        }
        self.end = start + len;
        self.packet_size += len;
        self.command_count += 1;
        if header.flags.contains(CommandFlags::ACKNOWLEDGE) {
            self.needs_sent_time = true;
        }
        Ok(())
    }

    /// Lets the datagram grow to `mtu` bytes, if that is more than it was
    /// started with (a command cut for a larger datagram than the one being
    /// packed must still leave).
    pub fn widen(&mut self, mtu: u32) {
        self.mtu = self.mtu.max(usize::try_from(mtu).unwrap_or(usize::MAX));
    }

    pub fn command_count(&self) -> usize {
        self.command_count
    }

    pub fn is_empty(&self) -> bool {
        self.command_count == 0
    }

    /// Whether the header will carry sentTime (an ACKNOWLEDGE-flagged
    /// command was packed).
    pub fn needs_sent_time(&self) -> bool {
        self.needs_sent_time
    }

    /// The packed commands, uncompressed.
    pub fn body(&self) -> &[u8] {
        self.buffer.get(HEADROOM..self.end).unwrap_or(&[])
    }

    /// Empties the builder for the next datagram, keeping its buffer.
    /// Empties the builder for the next datagram to a peer with this MTU.
    pub fn restart(&mut self, mtu: u32) {
        self.mtu = usize::try_from(mtu).unwrap_or(usize::MAX);
        self.clear();
    }

    pub fn clear(&mut self) {
        self.packet_size = COUNTED_HEADER_LEN;
        self.command_count = 0;
        self.needs_sent_time = false;
        self.end = HEADROOM;
    }

    /// The header this datagram gets, before compression is decided and the
    /// checksum computed.
    fn header(
        &self,
        peer_id: u16,
        session_id: u8,
        sent_time: u16,
        has_checksum: bool,
    ) -> DatagramHeader {
        DatagramHeader {
            peer_id,
            session_id: if peer_id < NO_PEER_ID { session_id } else { 0 },
            compressed: false,
            sent_time: self.needs_sent_time.then_some(sent_time),
            checksum: has_checksum.then_some([0; 4]),
        }
    }

    /// The datagram's final header, with the body compressed into
    /// `self.compressed` (after its headroom) if that makes it strictly
    /// smaller (then the header says so) and the checksum over the header
    /// (COMPRESSED flag included) and the uncompressed body.
    fn seal(&mut self, envelope: Envelope<'_>) -> DatagramHeader {
        let Envelope {
            peer_id,
            session_id,
            sent_time,
            connect_id,
            checksum: checksum_fn,
            compressor,
        } = envelope;
        let mut header = self.header(peer_id, session_id, sent_time, checksum_fn.is_some());
        let body = self.buffer.get(HEADROOM..self.end).unwrap_or(&[]);
        if let Some(compress) = compressor {
            self.compressed.resize(HEADROOM + body.len(), 0);
            let len = compress(body, &mut self.compressed[HEADROOM..]);
            if len > 0 && len < body.len() {
                self.compressed.truncate(HEADROOM + len);
                header.compressed = true;
            }
        }
        if let Some(checksum_fn) = checksum_fn {
            let seed = checksum::seed(peer_id, connect_id);
            let value = checksum::compute(&header, body, seed, checksum_fn);
            header.checksum = Some(value);
        }
        header
    }

    /// Finishes the datagram where it was built and returns its bytes:
    /// header, then the body, compressed if that makes it strictly smaller.
    /// Uncompressed (the usual case), the header is written into the room
    /// left before the commands, so nothing is copied. Stock never sends a
    /// datagram without commands.
    pub fn finish_in_place(&mut self, envelope: Envelope<'_>) -> &[u8] {
        let (buffer, range) = self.finish_for_transmit(envelope);
        &buffer[range]
    }

    /// Finishes the datagram as [`finish_in_place`](Self::finish_in_place)
    /// does, and returns the buffer it is in and where in it. The caller
    /// may take that buffer and put another (of any length) in its place:
    /// the builder works in whatever buffer it finds, so a transport that
    /// keeps datagrams until it sends them can keep this one without a copy.
    /// It may also frame the datagram where it lies: at least
    /// [`TRANSPORT_ROOM`] bytes before the range are free, and the buffer
    /// may be cut or grown after it.
    pub fn finish_for_transmit(&mut self, envelope: Envelope<'_>) -> (&mut Vec<u8>, Range<usize>) {
        let header = self.seal(envelope);
        let start = HEADROOM - header.buffer_len();
        let (datagram, end) = if header.compressed {
            let end = self.compressed.len();
            (&mut self.compressed, end)
        } else {
            (&mut self.buffer, self.end)
        };
        // Only a datagram without commands can be shorter than its header
        // room (stock never sends one).
        if datagram.len() < HEADROOM {
            datagram.resize(HEADROOM, 0);
        }
        // Emitted where it goes, not into an array to copy from.
        let emitted = header.emit(&mut datagram[start..HEADROOM]);
        debug_assert_eq!(emitted, HEADROOM - start);
        (datagram, start..end.max(HEADROOM))
    }

    /// Writes the finished datagram (as [`finish_in_place`]) into `out`,
    /// cleared first, leaving the builder as it was.
    ///
    /// [`finish_in_place`]: Self::finish_in_place
    pub fn finish_into(&self, envelope: Envelope<'_>, out: &mut Vec<u8>) {
        let mut copy = self.clone();
        out.clear();
        out.extend_from_slice(copy.finish_in_place(envelope));
    }

    /// [`finish_into`](Self::finish_into) a new vector.
    pub fn finish(&self, envelope: Envelope<'_>) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADROOM + self.body().len());
        self.finish_into(envelope, &mut out);
        out
    }
}

impl<'f> Envelope<'f> {
    /// An envelope without checksum or compression.
    pub fn plain(peer_id: u16, session_id: u8, sent_time: u16) -> Self {
        Envelope {
            peer_id,
            session_id,
            sent_time,
            connect_id: ConnectId::default(),
            checksum: None,
            compressor: None,
        }
    }
}
