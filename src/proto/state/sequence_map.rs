//! [`SequenceMap`]: values by 16-bit sequence number, for numbers that
//! cluster, as the reliable commands a channel holds ahead of a gap do.
//!
//! Values sit in a ring indexed by the number's low bits (a power of two
//! long), so a look-up is one index and one compare. A number whose entry
//! another number holds goes to a small ordered overflow instead, and the
//! ring doubles once it is half full, so clustered numbers land in the
//! ring. The ring grows only when half full and halves when an eighth full,
//! so it holds at most eight entries per value (a sender cannot make it
//! big with a few widely spread numbers).

use std::collections::BTreeMap;

/// Ring length on first use.
const FIRST_LEN: usize = 16;
/// Longest ring: numbers spread wider than this share entries and spill.
const MAX_LEN: usize = 4096;

#[derive(Debug)]
pub struct SequenceMap<T> {
    ring: Vec<Option<(u16, T)>>,
    overflow: BTreeMap<u16, T>,
    len: usize,
}

impl<T> Default for SequenceMap<T> {
    fn default() -> Self {
        SequenceMap {
            ring: Vec::new(),
            overflow: BTreeMap::new(),
            len: 0,
        }
    }
}

impl<T> SequenceMap<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn slot(&self, sequence: u16) -> usize {
        usize::from(sequence) & (self.ring.len() - 1)
    }

    /// The ring entry that holds `sequence`, if the ring does.
    fn ring_position(&self, sequence: u16) -> Option<usize> {
        if self.ring.is_empty() {
            return None;
        }
        let slot = self.slot(sequence);
        matches!(self.ring[slot], Some((held, _)) if held == sequence).then_some(slot)
    }

    pub fn contains(&self, sequence: u16) -> bool {
        self.get(sequence).is_some()
    }

    pub fn get(&self, sequence: u16) -> Option<&T> {
        match self.ring_position(sequence) {
            Some(slot) => self.ring[slot].as_ref().map(|(_, value)| value),
            None => self.overflow.get(&sequence),
        }
    }

    pub fn get_mut(&mut self, sequence: u16) -> Option<&mut T> {
        match self.ring_position(sequence) {
            Some(slot) => self.ring[slot].as_mut().map(|(_, value)| value),
            None => self.overflow.get_mut(&sequence),
        }
    }

    /// Puts `value` under `sequence`; the value it replaced, if any.
    pub fn insert(&mut self, sequence: u16, value: T) -> Option<T> {
        if let Some(slot) = self.ring_position(sequence) {
            return self.ring[slot]
                .replace((sequence, value))
                .map(|(_, old)| old);
        }
        if let Some(old) = self.overflow.get_mut(&sequence) {
            return Some(core::mem::replace(old, value));
        }
        self.len += 1;
        if self.ring.is_empty() || (self.len * 2 > self.ring.len() && self.ring.len() < MAX_LEN) {
            self.rebuild((self.ring.len() * 2).clamp(FIRST_LEN, MAX_LEN));
        }
        let slot = self.slot(sequence);
        match self.ring[slot] {
            None => self.ring[slot] = Some((sequence, value)),
            Some(_) => {
                self.overflow.insert(sequence, value);
            }
        }
        None
    }

    /// Takes the value under `sequence` out.
    pub fn remove(&mut self, sequence: u16) -> Option<T> {
        let removed = match self.ring_position(sequence) {
            Some(slot) => self.ring[slot].take().map(|(_, value)| value),
            None => self.overflow.remove(&sequence),
        }?;
        self.len -= 1;
        if self.len == 0 {
            *self = SequenceMap::default();
        } else if self.len * 8 < self.ring.len() && self.ring.len() > FIRST_LEN {
            self.rebuild(self.ring.len() / 2);
        }
        Some(removed)
    }

    /// Files every value again in a ring of `length` entries.
    fn rebuild(&mut self, length: usize) {
        let old_ring = core::mem::take(&mut self.ring);
        let old_overflow = core::mem::take(&mut self.overflow);
        self.ring.resize_with(length, || None);
        let values = old_ring.into_iter().flatten().chain(old_overflow);
        for (sequence, value) in values {
            let slot = self.slot(sequence);
            if self.ring[slot].is_none() {
                self.ring[slot] = Some((sequence, value));
            } else {
                self.overflow.insert(sequence, value);
            }
        }
    }

    /// The sequence numbers held, in no particular order.
    pub fn keys(&self) -> impl Iterator<Item = u16> + '_ {
        self.ring
            .iter()
            .flatten()
            .map(|(sequence, _)| *sequence)
            .chain(self.overflow.keys().copied())
    }

    /// Every value, in no particular order.
    pub fn into_values(self) -> impl Iterator<Item = T> {
        self.ring
            .into_iter()
            .flatten()
            .map(|(_, value)| value)
            .chain(self.overflow.into_values())
    }

    /// Ring entries allocated (for memory tests).
    #[cfg(test)]
    fn ring_len(&self) -> usize {
        self.ring.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same operations on a `BTreeMap` give the same answers, and the
    /// ring stays within eight entries per value held.
    #[test]
    fn behaves_as_an_ordinary_map() {
        let mut state = 0x2545_f491_u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        for spread in [8u32, 64, 600, 65536] {
            let mut map = SequenceMap::default();
            let mut model = BTreeMap::new();
            let base = next() as u16;
            for _ in 0..20_000 {
                let sequence = base.wrapping_add((next() % spread) as u16);
                if next() % 3 < 2 {
                    let value = next();
                    assert_eq!(map.insert(sequence, value), model.insert(sequence, value));
                } else {
                    assert_eq!(map.remove(sequence), model.remove(&sequence));
                }
                assert_eq!(map.get(sequence), model.get(&sequence));
                assert_eq!(map.len(), model.len());
                assert!(map.ring_len() <= (8 * map.len()).max(FIRST_LEN));
            }
            let mut keys: Vec<u16> = map.keys().collect();
            keys.sort_unstable();
            assert_eq!(keys, model.keys().copied().collect::<Vec<_>>());
            for (sequence, value) in &model {
                assert_eq!(map.get(*sequence), Some(value));
            }
            let mut values: Vec<u32> = map.into_values().collect();
            values.sort_unstable();
            let mut expected: Vec<u32> = model.into_values().collect();
            expected.sort_unstable();
            assert_eq!(values, expected);
        }
    }

    #[test]
    fn clustered_numbers_all_land_in_the_ring() {
        let mut map = SequenceMap::default();
        // A window of held commands across the wrap of the numbers.
        for sequence in 0..2000u16 {
            map.insert(sequence.wrapping_sub(1000), sequence);
        }
        assert!(map.overflow.is_empty());
        for sequence in 0..2000u16 {
            assert_eq!(map.remove(sequence.wrapping_sub(1000)), Some(sequence));
        }
        assert_eq!(map.ring_len(), 0, "an empty map holds no ring");
    }
}
