//! Sequence numbers with their meaning in their type: a channel's reliable
//! number, which wraps around 16 bits and is judged by the 4096-number
//! window it lies in, and the unreliable number that counts the unreliable
//! packets sent after one reliable number. Held commands are keyed by both;
//! as distinct types they cannot be passed in each other's place.
//!
//! The `#[repr(C)]` structs a program sees (`ENetChannel`, `ENetPeer`) and
//! the wire keep plain `u16`s; the engine wraps them where it reads them and
//! unwraps them where it writes them back.

use crate::abi::*;

/// Reliable sequence numbers per reliable window.
pub(crate) const WINDOW_SIZE: u16 = ENET_PEER_RELIABLE_WINDOW_SIZE as u16;
/// Reliable windows in the 16-bit sequence space.
pub(crate) const WINDOWS: u16 = ENET_PEER_RELIABLE_WINDOWS as u16;
/// Windows a receiver keeps open ahead of the one it is in.
pub(crate) const FREE_WINDOWS: u16 = ENET_PEER_FREE_RELIABLE_WINDOWS as u16;

/// A reliable sequence number. It wraps around, so it has no order of its
/// own: how far one lies from another is a question of windows (see
/// [`ReliableSequence::in_receive_window`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct ReliableSequence(u16);

impl ReliableSequence {
    #[inline(always)]
    pub const fn new(raw: u16) -> Self {
        ReliableSequence(raw)
    }

    /// The number as the wire and the public structs carry it.
    #[inline(always)]
    pub const fn get(self) -> u16 {
        self.0
    }

    /// The number after it, 0 after 0xFFFF.
    #[inline(always)]
    pub const fn next(self) -> Self {
        ReliableSequence(self.0.wrapping_add(1))
    }

    /// The number `count` places on, wrapping around.
    #[inline(always)]
    pub const fn plus(self, count: u16) -> Self {
        ReliableSequence(self.0.wrapping_add(count))
    }

    /// Which of the 16 reliable windows it is in.
    #[inline(always)]
    pub const fn window(self) -> u16 {
        self.0 / WINDOW_SIZE
    }

    /// Whether it is the first number of its window.
    #[inline(always)]
    pub const fn starts_window(self) -> bool {
        self.0 % WINDOW_SIZE == 0
    }

    /// Its window counted from `current`'s: a number below `current` is
    /// taken to lie past the wrap, a whole cycle of windows on. Never less
    /// than `current`'s window.
    #[inline(always)]
    const fn window_seen_from(self, current: ReliableSequence) -> u16 {
        if self.0 < current.0 {
            self.window() + WINDOWS
        } else {
            self.window()
        }
    }

    /// Whether it lies in the windows a receiver accepts while its channel
    /// is at `current` (expecting the number after): `current`'s window and
    /// the next `FREE_WINDOWS - 2`, counted around the wrap. `current`
    /// itself counts as inside (a duplicate is checked apart).
    #[inline(always)]
    pub const fn in_receive_window(self, current: ReliableSequence) -> bool {
        let window = self.window_seen_from(current);
        let current_window = current.window();
        window >= current_window && window < current_window + FREE_WINDOWS - 1
    }

    /// Whether it lies in the two windows just past those a receiver at
    /// `current` accepts: a sender cannot have such a number in flight
    /// unless it wrapped around, so its acknowledgement is withheld.
    #[inline(always)]
    pub const fn in_guard_windows(self, current: ReliableSequence) -> bool {
        let window = self.window_seen_from(current);
        let current_window = current.window();
        window >= current_window + FREE_WINDOWS - 1 && window <= current_window + FREE_WINDOWS
    }
}

/// An unreliable sequence number: which unreliable packet it is among
/// those sent after one reliable number. It starts over at each reliable
/// number, so, as in stock ENet, numbers compare plainly, without wrap.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct UnreliableSequence(u16);

impl UnreliableSequence {
    #[inline(always)]
    pub const fn new(raw: u16) -> Self {
        UnreliableSequence(raw)
    }

    /// The number as the wire and the public structs carry it.
    #[inline(always)]
    pub const fn get(self) -> u16 {
        self.0
    }

    /// The number after it, 0 after 0xFFFF (as stock's counter wraps).
    #[inline(always)]
    pub const fn next(self) -> Self {
        UnreliableSequence(self.0.wrapping_add(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(raw: u16) -> ReliableSequence {
        ReliableSequence::new(raw)
    }

    /// Stock's window test, written out as stock writes it, to compare
    /// the type against.
    fn stock_in_window(sequence: u16, current: u16) -> bool {
        let mut window = sequence / 4096;
        let current_window = current / 4096;
        if sequence < current {
            window += 16;
        }
        window >= current_window && window < current_window + 8 - 1
    }

    fn stock_withheld(sequence: u16, current: u16) -> bool {
        let mut window = sequence / 4096;
        let current_window = current / 4096;
        if sequence < current {
            window += 16;
        }
        window >= current_window + 8 - 1 && window <= current_window + 8
    }

    #[test]
    fn next_wraps_to_zero() {
        assert_eq!(seq(0).next(), seq(1));
        assert_eq!(seq(0xFFFE).next(), seq(0xFFFF));
        assert_eq!(seq(0xFFFF).next(), seq(0));
        assert_eq!(seq(0xFFFF).plus(3), seq(2));
        assert_eq!(seq(10).plus(0), seq(10));
    }

    #[test]
    fn windows_are_4096_numbers() {
        assert_eq!(seq(0).window(), 0);
        assert_eq!(seq(4095).window(), 0);
        assert_eq!(seq(4096).window(), 1);
        assert_eq!(seq(0xFFFF).window(), 15);
        assert!(seq(0).starts_window());
        assert!(seq(3 * 4096).starts_window());
        assert!(!seq(4097).starts_window());
    }

    #[test]
    fn receive_window_matches_stock_arithmetic() {
        assert!(seq(1).in_receive_window(seq(0)));
        assert!(seq(6 * 4096 + 4095).in_receive_window(seq(0)));
        assert!(!seq(7 * 4096).in_receive_window(seq(0)));
        assert!(!seq(65535).in_receive_window(seq(3))); // behind
        assert!(seq(3).in_receive_window(seq(65530))); // ahead across the wrap
        assert!(seq(10).in_receive_window(seq(10))); // equal is inside
                                                     // Around the wrap: from the last window, six more are ahead, the
                                                     // last of them is window 5 past 0.
        assert!(seq(0).in_receive_window(seq(0xFFFF)));
        assert!(seq(5 * 4096 + 4095).in_receive_window(seq(0xFFFF)));
        assert!(!seq(6 * 4096).in_receive_window(seq(0xFFFF)));
        assert!(!seq(0xFFFE).in_receive_window(seq(0xFFFF))); // one behind
    }

    #[test]
    fn guard_windows_are_the_two_past_the_receive_window() {
        assert!(!seq(6 * 4096 + 4095).in_guard_windows(seq(0)));
        assert!(seq(7 * 4096).in_guard_windows(seq(0)));
        assert!(seq(8 * 4096 + 4095).in_guard_windows(seq(0)));
        assert!(!seq(9 * 4096).in_guard_windows(seq(0)));
        // Across the wrap from the last window: windows 6 and 7 past 0.
        assert!(seq(6 * 4096).in_guard_windows(seq(0xFFFF)));
        assert!(seq(7 * 4096 + 4095).in_guard_windows(seq(0xFFFF)));
        assert!(!seq(8 * 4096).in_guard_windows(seq(0xFFFF)));
    }

    #[test]
    fn every_pair_agrees_with_stock_around_the_wrap() {
        let interesting = [
            0u16, 1, 2, 4095, 4096, 4097, 28671, 28672, 32767, 32768, 36863, 36864, 61439, 61440,
            65533, 65534, 65535,
        ];
        for &current in &interesting {
            for sequence in (0..=u16::MAX).step_by(97).chain(interesting) {
                assert_eq!(
                    seq(sequence).in_receive_window(seq(current)),
                    stock_in_window(sequence, current),
                    "in window: {sequence} from {current}"
                );
                assert_eq!(
                    seq(sequence).in_guard_windows(seq(current)),
                    stock_withheld(sequence, current),
                    "withheld: {sequence} from {current}"
                );
            }
        }
    }

    #[test]
    fn unreliable_numbers_compare_plainly() {
        assert!(UnreliableSequence::new(2) > UnreliableSequence::new(1));
        assert!(UnreliableSequence::new(0xFFFF) > UnreliableSequence::new(0));
        assert_eq!(UnreliableSequence::new(7).get(), 7);
        assert_eq!(UnreliableSequence::new(7).next().get(), 8);
        assert_eq!(UnreliableSequence::new(0xFFFF).next().get(), 0);
    }
}
