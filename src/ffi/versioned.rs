//! Versioned structs the program sizes (`ENetRsHostStats`,
//! `ENetRsPeerCounters`, `ENetRsDisconnectReason`): each starts with a
//! `uint64_t size` the caller sets to `sizeof` the struct it was built
//! with. A call refuses a size below the struct's first version, fills as
//! many bytes as both sides know, and writes back how many it filled, so a
//! program built against an older header gets the fields it knows and one
//! built against a newer header learns which of its fields were filled.

/// The `size` a caller set in a versioned struct at `out`, if it is at
/// least `minimum`.
///
/// # Safety
/// `out` is NULL or points at a readable `u64` (the struct's first field).
pub(super) unsafe fn caller_size(out: *const u64, minimum: usize) -> Option<usize> {
    if out.is_null() {
        return None;
    }
    // SAFETY: the caller's contract: a non-NULL `out` points at the
    // struct, whose first field is the `u64` size the program set; read
    // unaligned, as a C program may pack its struct differently.
    let size = unsafe { out.read_unaligned() };
    let size = usize::try_from(size).ok()?;
    (size >= minimum).then_some(size)
}

/// Copies the first `size` bytes of `value` (at most all of it) to `out`,
/// and sets `out`'s size field to what was copied.
///
/// # Safety
/// `out` points at `size` writable bytes (the program's struct, which may
/// be longer or shorter than `T`), of which the first 8 are a `u64`.
pub(super) unsafe fn fill_versioned<T: Copy>(out: *mut u64, value: &T, size: usize) {
    let filled = size.min(core::mem::size_of::<T>());
    // SAFETY: `value` is a whole `T`, so its first `filled` bytes are
    // readable; `out` has `size >= filled` writable bytes by the caller's
    // contract; a Rust value and the program's struct never overlap.
    unsafe {
        core::ptr::copy_nonoverlapping((value as *const T).cast::<u8>(), out.cast::<u8>(), filled);
        out.write_unaligned(filled as u64);
    }
}
