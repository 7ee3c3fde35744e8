//! The adaptive range coder (filled in by the range-coder work).
