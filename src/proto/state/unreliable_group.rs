//! The unreliable commands a channel holds under one reliable sequence
//! number, in the order of their own numbers.
//!
//! They are held while the reliable command before them is missing: when
//! a receiver's socket drops the datagram carrying one, everything sent
//! after it waits for the resend, which under a flood is tens of
//! thousands of messages, each arriving after the one before. A map
//! insertion for each made holding several times dearer than delivering,
//! so a receiver that fell behind once fell further. Commands arriving in
//! order are appended to a run instead (constant time, no allocation but
//! the run's growth); a command older than the newest held (reordering)
//! goes into an ordered map beside it, so no arrival order costs more
//! than a map insertion. A command taken from the middle of the run (an
//! unreliable fragmented packet that completed) leaves an empty place,
//! dropped once it reaches either end.

use std::collections::{BTreeMap, VecDeque};

use super::sequence::UnreliableSequence;

/// Empty places a run keeps beyond as many as it holds commands.
const EMPTY_PLACES_KEPT: usize = 32;

#[derive(Debug)]
pub struct UnreliableGroup<T> {
    /// Commands in increasing order of their numbers, with the places of
    /// ones taken out; neither end is an empty place.
    run: VecDeque<(UnreliableSequence, Option<T>)>,
    /// Commands in the run's places.
    in_run: usize,
    /// Commands older than the run's newest when they arrived, and not in
    /// it.
    others: BTreeMap<UnreliableSequence, T>,
}

impl<T> Default for UnreliableGroup<T> {
    fn default() -> Self {
        UnreliableGroup {
            run: VecDeque::new(),
            in_run: 0,
            others: BTreeMap::new(),
        }
    }
}

impl<T> UnreliableGroup<T> {
    pub fn len(&self) -> usize {
        self.in_run + self.others.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where `sequence` is or would be in the run.
    fn position(&self, sequence: UnreliableSequence) -> Result<usize, usize> {
        self.run.binary_search_by_key(&sequence, |(held, _)| *held)
    }

    fn newest_in_run(&self) -> Option<UnreliableSequence> {
        self.run.back().map(|(sequence, _)| *sequence)
    }

    pub fn contains_key(&self, sequence: &UnreliableSequence) -> bool {
        if self.newest_in_run().is_none_or(|newest| *sequence > newest) {
            return self.others.contains_key(sequence);
        }
        match self.position(*sequence) {
            Ok(at) => self.run[at].1.is_some(),
            Err(_) => self.others.contains_key(sequence),
        }
    }

    pub fn get_mut(&mut self, sequence: &UnreliableSequence) -> Option<&mut T> {
        match self.position(*sequence) {
            Ok(at) if self.run[at].1.is_some() => self.run[at].1.as_mut(),
            _ => self.others.get_mut(sequence),
        }
    }

    /// Holds `incoming` under `sequence`; the command it replaced, if any.
    pub fn insert(&mut self, sequence: UnreliableSequence, incoming: T) -> Option<T> {
        if self.newest_in_run().is_none_or(|newest| sequence > newest) {
            if let Some(replaced) = self.others.remove(&sequence) {
                // Held beside the run already: it stays there.
                self.others.insert(sequence, incoming);
                return Some(replaced);
            }
            self.run.push_back((sequence, Some(incoming)));
            self.in_run += 1;
            return None;
        }
        match self.position(sequence) {
            Ok(at) => {
                let replaced = self.run[at].1.replace(incoming);
                if replaced.is_none() {
                    self.in_run += 1;
                }
                replaced
            }
            Err(_) => self.others.insert(sequence, incoming),
        }
    }

    pub fn remove(&mut self, sequence: &UnreliableSequence) -> Option<T> {
        let at = match self.position(*sequence) {
            Ok(at) if self.run[at].1.is_some() => at,
            _ => return self.others.remove(sequence),
        };
        let removed = self.run[at].1.take();
        self.in_run -= 1;
        while self.run.front().is_some_and(|(_, held)| held.is_none()) {
            self.run.pop_front();
        }
        while self.run.back().is_some_and(|(_, held)| held.is_none()) {
            self.run.pop_back();
        }
        // Empty places count against no budget (a peer completing
        // fragmented packets in the middle of a long run could otherwise
        // leave up to 65536 of them a group): at most as many as held
        // commands, and a few, are kept.
        if self.run.len() > 2 * self.in_run + EMPTY_PLACES_KEPT {
            self.run.retain(|(_, held)| held.is_some());
        }
        removed
    }

    /// Every command held, in the order of their numbers.
    pub fn into_iter(self) -> impl Iterator<Item = (UnreliableSequence, T)> {
        let mut run = self
            .run
            .into_iter()
            .filter_map(|(sequence, held)| held.map(|incoming| (sequence, incoming)))
            .peekable();
        let mut others = self.others.into_iter().peekable();
        std::iter::from_fn(move || match (run.peek(), others.peek()) {
            (Some((in_run, _)), Some((other, _))) if other < in_run => others.next(),
            (Some(_), _) => run.next(),
            (None, _) => others.next(),
        })
    }

    pub fn into_values(self) -> impl Iterator<Item = T> {
        self.into_iter().map(|(_, incoming)| incoming)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The group agrees with an ordered map, operation for operation, for
    /// arrivals in order, reversed, interleaved and repeated, with
    /// removals from anywhere.
    #[test]
    fn behaves_as_an_ordered_map() {
        let orders: [Vec<u16>; 4] = [
            (1..200).collect(),
            (1..200).rev().collect(),
            (1..200).map(|i| (i * 37) % 211).collect(),
            [5, 6, 7, 3, 8, 3, 9, 1, 10, 2, 4, 12, 11, 7].to_vec(),
        ];
        for order in orders {
            let mut group = UnreliableGroup::default();
            let mut model: BTreeMap<u16, usize> = BTreeMap::new();
            for (step, &sequence) in order.iter().enumerate() {
                let key = UnreliableSequence::new(sequence);
                assert_eq!(group.insert(key, step), model.insert(sequence, step));
                assert!(group.contains_key(&key));
                assert_eq!(group.len(), model.len());
                // Every third step, take one out from the middle.
                if step % 3 == 2 {
                    let middle = *model.keys().nth(model.len() / 2).unwrap();
                    let key = UnreliableSequence::new(middle);
                    assert_eq!(group.remove(&key), model.remove(&middle));
                    assert!(!group.contains_key(&key));
                    assert_eq!(group.remove(&key), None);
                }
                for (&held, &value) in &model {
                    let key = UnreliableSequence::new(held);
                    assert_eq!(group.get_mut(&key).copied(), Some(value));
                }
                assert_eq!(group.is_empty(), model.is_empty());
            }
            assert!(!group.contains_key(&UnreliableSequence::new(60000)));
            let held: Vec<(u16, usize)> = group
                .into_iter()
                .map(|(sequence, value)| (sequence.get(), value))
                .collect();
            assert_eq!(held, model.into_iter().collect::<Vec<_>>());
        }
    }

    /// Holding in order never touches the map beside the run, and a
    /// command taken from the front leaves no empty place.
    #[test]
    fn in_order_arrivals_are_appended() {
        let mut group = UnreliableGroup::default();
        for sequence in 1..=1000u16 {
            assert_eq!(
                group.insert(UnreliableSequence::new(sequence), sequence),
                None
            );
        }
        assert_eq!(group.len(), 1000);
        assert!(group.others.is_empty());
        assert_eq!(group.remove(&UnreliableSequence::new(1)), Some(1));
        assert_eq!(group.run.len(), 999);
        assert_eq!(group.remove(&UnreliableSequence::new(1000)), Some(1000));
        assert_eq!(group.run.len(), 998);
        assert_eq!(
            group.into_values().collect::<Vec<_>>(),
            (2..1000).collect::<Vec<_>>()
        );
    }

    /// Commands taken from the middle of a run leave no more empty places
    /// than it holds commands, and a few.
    #[test]
    fn empty_places_stay_bounded() {
        let mut group = UnreliableGroup::default();
        for sequence in 0..=u16::MAX {
            group.insert(UnreliableSequence::new(sequence), sequence);
        }
        for sequence in 1..u16::MAX {
            assert_eq!(
                group.remove(&UnreliableSequence::new(sequence)),
                Some(sequence)
            );
            assert!(group.run.len() <= 2 * group.len() + EMPTY_PLACES_KEPT);
        }
        assert_eq!(group.len(), 2);
        assert_eq!(group.into_values().collect::<Vec<_>>(), [0, u16::MAX]);
    }
}
