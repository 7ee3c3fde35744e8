//! Checked access to fixed-offset fields.
//!
//! Every wire module names its field offsets once, as ranges in a `field`
//! module (the smoltcp habit), and reads or writes them only through these
//! helpers. They never index: an out-of-range field reads as `None` and a
//! write to one does nothing and reports `None`. Parsers check the length of
//! what they were given once, up front, so in practice these never fail; the
//! checks are what keeps a mistake in a length check from becoming a panic.

use core::ops::Range;

/// Byte range of a field, relative to the start of the header or command.
pub type Field = Range<usize>;

pub fn read_u8(bytes: &[u8], at: usize) -> Option<u8> {
    bytes.get(at).copied()
}

pub fn read_u16(bytes: &[u8], field: Field) -> Option<u16> {
    Some(u16::from_be_bytes(read_array(bytes, field)?))
}

pub fn read_u32(bytes: &[u8], field: Field) -> Option<u32> {
    Some(u32::from_be_bytes(read_array(bytes, field)?))
}

/// The raw bytes of a field, in wire order (for the fields ENet never
/// byte-swaps: `connectID` and the checksum slot).
pub fn read_array<const N: usize>(bytes: &[u8], field: Field) -> Option<[u8; N]> {
    bytes.get(field)?.try_into().ok()
}

pub fn write_u8(bytes: &mut [u8], at: usize, value: u8) -> Option<()> {
    *bytes.get_mut(at)? = value;
    Some(())
}

pub fn write_u16(bytes: &mut [u8], field: Field, value: u16) -> Option<()> {
    write_bytes(bytes, field, &value.to_be_bytes())
}

pub fn write_u32(bytes: &mut [u8], field: Field, value: u32) -> Option<()> {
    write_bytes(bytes, field, &value.to_be_bytes())
}

/// Copies `value` into `field`; nothing is written unless both have the
/// same length and the field lies inside `bytes`.
pub fn write_bytes(bytes: &mut [u8], field: Field, value: &[u8]) -> Option<()> {
    let slot = bytes.get_mut(field)?;
    if slot.len() != value.len() {
        return None;
    }
    slot.copy_from_slice(value);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_big_endian_and_checked() {
        let bytes = [0x12, 0x34, 0x56, 0x78];
        assert_eq!(read_u16(&bytes, 0..2), Some(0x1234));
        assert_eq!(read_u32(&bytes, 0..4), Some(0x1234_5678));
        assert_eq!(read_array::<4>(&bytes, 0..4), Some(bytes));
        assert_eq!(read_u16(&bytes, 3..5), None);
        assert_eq!(read_u32(&bytes, 1..5), None);
        assert_eq!(read_u8(&bytes, 4), None);
        // A range of the wrong width is refused rather than truncated.
        assert_eq!(read_u16(&bytes, 0..3), None);
    }

    #[test]
    fn writes_outside_the_buffer_change_nothing() {
        let mut bytes = [0u8; 3];
        assert_eq!(write_u16(&mut bytes, 0..2, 0xABCD), Some(()));
        assert_eq!(bytes, [0xAB, 0xCD, 0]);
        assert_eq!(write_u32(&mut bytes, 0..4, 1), None);
        assert_eq!(write_u16(&mut bytes, 2..4, 1), None);
        assert_eq!(write_u8(&mut bytes, 3, 1), None);
        assert_eq!(write_bytes(&mut bytes, 0..2, &[1, 2, 3]), None);
        assert_eq!(bytes, [0xAB, 0xCD, 0]);
    }
}
