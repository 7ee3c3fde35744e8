//! Reading structured choices out of fuzz input: every read succeeds, with
//! zeros once the input is used up, so any byte string decodes.

pub struct Input<'a> {
    bytes: &'a [u8],
}

impl<'a> Input<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Input { bytes }
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn u8(&mut self) -> u8 {
        match self.bytes.split_first() {
            Some((&byte, rest)) => {
                self.bytes = rest;
                byte
            }
            None => 0,
        }
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_be_bytes([self.u8(), self.u8()])
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_be_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    pub fn bool(&mut self) -> bool {
        self.u8() & 1 != 0
    }

    /// Up to `len` bytes (fewer if the input ends).
    pub fn bytes(&mut self, len: usize) -> &'a [u8] {
        let (taken, rest) = self.bytes.split_at(len.min(self.bytes.len()));
        self.bytes = rest;
        taken
    }

    /// A length-prefixed byte string (16-bit length, capped at `max`).
    pub fn blob(&mut self, max: usize) -> &'a [u8] {
        let len = usize::from(self.u16()) % (max + 1);
        self.bytes(len)
    }

    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        core::mem::take(&mut self.bytes)
    }
}

/// `len` bytes counting 0, 1, … up to `period - 1` and again from 0: a
/// payload whose every byte says where it belongs. Built by copying one
/// period at a time: byte by byte, under coverage instrumentation, it was
/// a quarter of the instructions of a replay of the `engine` corpus.
pub fn counting_bytes(len: usize, period: u8) -> Vec<u8> {
    assert!(period > 0, "a period of at least one byte");
    let cycle: Vec<u8> = (0..period).collect();
    let mut bytes = Vec::with_capacity(len);
    while bytes.len() < len {
        let take = cycle.len().min(len - bytes.len());
        bytes.extend_from_slice(&cycle[..take]);
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::counting_bytes;

    #[test]
    fn counting_bytes_are_the_index_modulo_the_period() {
        for (len, period) in [
            (0, 253),
            (1, 253),
            (252, 253),
            (253, 253),
            (254, 253),
            (5000, 251),
        ] {
            let expected: Vec<u8> = (0..len).map(|i| (i % usize::from(period)) as u8).collect();
            assert_eq!(
                counting_bytes(len, period),
                expected,
                "{len} bytes, period {period}"
            );
        }
    }
}
