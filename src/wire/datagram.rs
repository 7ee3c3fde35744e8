//! A received datagram: its header, its body, and an iterator over the
//! commands of a body that stops exactly where stock ENet stops.
//!
//! Receiving, in stock ENet's order: [`Datagram::parse`] the header (the
//! engine then checks the peer id and session against its peers);
//! decompress the body if the header says so; verify the checksum over the
//! header and the *decompressed* body (see [`super::checksum`]); then walk
//! [`Commands`] over the (decompressed) body.

use super::command::{Command, CommandHeader};
use super::header::DatagramHeader;
use super::DropReason;

/// A parsed header over the bytes of one received datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Datagram<'a> {
    header: DatagramHeader,
    header_bytes: &'a [u8],
    body: &'a [u8],
}

impl<'a> Datagram<'a> {
    /// Parses the header of `bytes`; `has_checksum` says whether the host
    /// uses a checksum (nothing on the wire says so). Fails only with
    /// [`DropReason::Truncated`].
    pub fn parse(bytes: &'a [u8], has_checksum: bool) -> Result<Self, DropReason> {
        let (header, header_len) = DatagramHeader::parse(bytes, has_checksum)?;
        let (header_bytes, body) = bytes
            .split_at_checked(header_len)
            .ok_or(DropReason::Truncated)?;
        Ok(Datagram {
            header,
            header_bytes,
            body,
        })
    }

    pub fn header(&self) -> &DatagramHeader {
        &self.header
    }

    /// The header as received, checksum slot included.
    pub fn header_bytes(&self) -> &'a [u8] {
        self.header_bytes
    }

    /// Everything after the header: the commands, range-coded if
    /// `header().compressed`.
    pub fn body(&self) -> &'a [u8] {
        self.body
    }

    /// The commands of an uncompressed body. For a compressed datagram,
    /// decompress [`body`](Self::body) and use [`Commands::new`] on the result.
    pub fn commands(&self) -> Commands<'a> {
        Commands::new(self.body)
    }
}

/// Iterator over the commands of a datagram body.
///
/// Yields each command that parses, in order. If the body does not end
/// exactly after a command, it then yields one `Err` naming why stock ENet
/// would stop there ([`DropReason::TruncatedCommand`],
/// [`DropReason::UnknownCommand`] or [`DropReason::PayloadOutOfBounds`]),
/// and after that nothing: the rest of the datagram is ignored, while the
/// commands before it count.
///
/// Stops that need engine state are the engine's to make, between items:
/// with peer id 0xFFF anything but CONNECT stops processing; a handler error
/// stops it; and with a known peer, a datagram *without* sentTime stops
/// right after its first ACKNOWLEDGE-flagged command (a quirk of
/// protocol.c@v1.3.17, facts §5a).
#[derive(Debug, Clone)]
pub struct Commands<'a> {
    rest: &'a [u8],
    offset: usize,
    stop: Option<DropReason>,
    finished: bool,
}

impl<'a> Commands<'a> {
    pub fn new(body: &'a [u8]) -> Self {
        Commands {
            rest: body,
            offset: 0,
            stop: None,
            finished: false,
        }
    }

    /// Why iteration stopped early; `None` while iterating or when the body
    /// ended exactly after its last command.
    pub fn stop_reason(&self) -> Option<DropReason> {
        self.stop
    }

    /// Offset in the body of the next command (or of the bytes that
    /// stopped iteration).
    pub fn offset(&self) -> usize {
        self.offset
    }
}

impl<'a> Iterator for Commands<'a> {
    type Item = Result<(CommandHeader, Command<'a>), DropReason>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.finished || self.rest.is_empty() {
            self.finished = true;
            return None;
        }
        match Command::parse(self.rest) {
            Ok((header, command, consumed)) => {
                self.rest = self.rest.get(consumed..).unwrap_or(&[]);
                self.offset += consumed;
                Some(Ok((header, command)))
            }
            Err(reason) => {
                self.stop = Some(reason);
                self.finished = true;
                Some(Err(reason))
            }
        }
    }
}

impl core::iter::FusedIterator for Commands<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::command::CommandFlags;

    /// ACK rsn 1 + PING rsn 2, from wiretrace-plain.txt.
    const ACK_AND_PING: [u8; 16] = [
        0x80, 0x00, 0xf7, 0x09, 0x01, 0xff, 0x00, 0x01, 0x00, 0x01, 0xf7, 0x08, 0x85, 0xff, 0x00,
        0x02,
    ];

    #[test]
    fn splits_header_and_body_and_walks_the_commands() {
        let datagram = Datagram::parse(&ACK_AND_PING, false).unwrap();
        assert_eq!(datagram.header().sent_time, Some(0xf709));
        assert_eq!(datagram.header_bytes(), &ACK_AND_PING[..4]);
        assert_eq!(datagram.body(), &ACK_AND_PING[4..]);
        let mut commands = datagram.commands();
        let (header, command) = commands.next().unwrap().unwrap();
        assert_eq!(header.channel_id, 0xff);
        assert_eq!(
            command,
            Command::Acknowledge {
                received_reliable_sequence_number: 1,
                received_sent_time: 0xf708
            }
        );
        assert_eq!(commands.offset(), 8);
        let (header, command) = commands.next().unwrap().unwrap();
        assert_eq!(header.flags, CommandFlags::ACKNOWLEDGE);
        assert_eq!(header.reliable_sequence_number, 2);
        assert_eq!(command, Command::Ping);
        assert!(commands.next().is_none());
        assert_eq!(commands.stop_reason(), None);
        assert_eq!(commands.offset(), 12);
    }

    /// The body of ACK_AND_PING followed by `tail`: how the loop ends.
    fn stop_after_two(tail: &[u8]) -> (usize, Option<DropReason>) {
        let mut body = ACK_AND_PING[4..].to_vec();
        body.extend_from_slice(tail);
        let mut commands = Commands::new(&body);
        let parsed = commands.by_ref().take_while(Result::is_ok).count();
        assert!(commands.next().is_none(), "fused after the stop");
        (parsed, commands.stop_reason())
    }

    #[test]
    fn stops_where_stock_stops() {
        use DropReason::*;
        // Fewer than 4 bytes left.
        assert_eq!(
            stop_after_two(&[0x85, 0xff, 0x00]),
            (2, Some(TruncatedCommand))
        );
        // Command number 0, and 13..=15, with any flags.
        for byte in [0x00, 0x80, 0x0d, 0x4e, 0xff] {
            let tail = [byte, 0xff, 0x00, 0x03, 0, 0, 0, 0];
            assert_eq!(stop_after_two(&tail), (2, Some(UnknownCommand)));
        }
        // The fixed size of DISCONNECT (8) does not fit.
        assert_eq!(
            stop_after_two(&[0x84, 0xff, 0x00, 0x03, 0x00, 0x00, 0xab]),
            (2, Some(TruncatedCommand))
        );
        // SEND_RELIABLE announcing 3 payload bytes, 2 present.
        assert_eq!(
            stop_after_two(&[0x86, 0x00, 0x00, 0x01, 0x00, 0x03, b'h', b'i']),
            (2, Some(PayloadOutOfBounds))
        );
        // A well-formed command after a bad one is never reached.
        assert_eq!(
            stop_after_two(&[0x00, 0, 0, 0, 0x85, 0xff, 0x00, 0x04]),
            (2, Some(UnknownCommand))
        );
        // Exactly enough payload is fine.
        assert_eq!(
            stop_after_two(&[0x86, 0x00, 0x00, 0x01, 0x00, 0x02, b'h', b'i']),
            (3, None)
        );
    }

    #[test]
    fn an_empty_body_has_no_commands() {
        let datagram = Datagram::parse(&[0x00, 0x00], false).unwrap();
        assert!(datagram.body().is_empty());
        assert_eq!(datagram.commands().count(), 0);
    }
}
