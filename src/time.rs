//! Wrapping millisecond timestamps, compared as ENet's `ENET_TIME_*` macros do.
//!
//! ENet's clock is a `u32` of milliseconds that wraps every ~49.7 days; two
//! stamps are ordered by which way round their difference is smaller than a
//! day (`ENET_TIME_OVERFLOW`).

/// Differences at or above this are taken to have wrapped.
pub const TIME_OVERFLOW: u32 = 86_400_000;

/// `a` is earlier than `b`.
pub fn time_less(a: u32, b: u32) -> bool {
    a.wrapping_sub(b) >= TIME_OVERFLOW
}

/// `a` is later than `b`.
pub fn time_greater(a: u32, b: u32) -> bool {
    b.wrapping_sub(a) >= TIME_OVERFLOW
}

/// `a` is not later than `b`.
pub fn time_less_equal(a: u32, b: u32) -> bool {
    !time_greater(a, b)
}

/// `a` is not earlier than `b`.
pub fn time_greater_equal(a: u32, b: u32) -> bool {
    !time_less(a, b)
}

/// The distance between two stamps, whichever is later.
pub fn time_difference(a: u32, b: u32) -> u32 {
    if a.wrapping_sub(b) >= TIME_OVERFLOW {
        b.wrapping_sub(a)
    } else {
        a.wrapping_sub(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordering_matches_the_c_macros() {
        assert!(time_less(1, 2));
        assert!(time_less(0, TIME_OVERFLOW));
        assert!(!time_less(2, 1));
        assert!(time_greater(2, 1));
        assert!(time_less_equal(5, 5));
        assert!(time_greater_equal(5, 5));
        // Across the u32 wrap, 3 comes after u32::MAX - 2.
        assert!(time_less(u32::MAX - 2, 3));
        assert!(time_greater(3, u32::MAX - 2));
        assert_eq!(time_difference(5, 0xFFFF_FFFB), 10);
        assert_eq!(time_difference(0xFFFF_FFFB, 5), 10);
        assert_eq!(time_difference(100, 40), 60);
    }
}
