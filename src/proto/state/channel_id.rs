//! Which channel a command travels on: one type for the number the wire
//! carries (a byte, 0xFF for connection-level commands) and the index into
//! a peer's channel array, so no function takes it as a byte and the next
//! as a `usize`.

/// A channel's number as the wire carries it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct ChannelId(u8);

impl ChannelId {
    /// The channel of connection-level commands (connect, ping,
    /// disconnect, ...), which belong to no channel of the peer's.
    pub const CONNECTION: ChannelId = ChannelId(0xFF);

    /// The byte the wire carries.
    #[inline(always)]
    pub const fn wire(self) -> u8 {
        self.0
    }

    /// Its place in the peer's channel array (the connection channel's
    /// lies past any array a peer has, so a look-up of it finds nothing).
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Whether it is the connection channel.
    #[inline(always)]
    pub const fn is_connection(self) -> bool {
        self.0 == Self::CONNECTION.0
    }
}

/// The channel a command names on the wire.
impl From<u8> for ChannelId {
    #[inline(always)]
    fn from(wire: u8) -> Self {
        ChannelId(wire)
    }
}

impl From<ChannelId> for u8 {
    #[inline(always)]
    fn from(channel: ChannelId) -> Self {
        channel.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_byte_and_index_agree() {
        let channel = ChannelId::from(3);
        assert_eq!(channel.wire(), 3);
        assert_eq!(channel.index(), 3);
        assert_eq!(u8::from(channel), 3);
        assert!(!channel.is_connection());
        assert_eq!(ChannelId::CONNECTION.wire(), 0xFF);
        assert_eq!(ChannelId::CONNECTION.index(), 255);
        assert!(ChannelId::from(0xFF).is_connection());
    }
}
