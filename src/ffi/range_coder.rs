//! `enet_range_coder_*` (filled in by the range-coder work).

use core::ffi::c_void;

use crate::abi::ENetBuffer;

#[no_mangle]
pub extern "C" fn enet_range_coder_create() -> *mut c_void {
    core::ptr::null_mut()
}

/// # Safety
/// `context` must be NULL or come from `enet_range_coder_create`.
#[no_mangle]
pub unsafe extern "C" fn enet_range_coder_destroy(_context: *mut c_void) {}

/// # Safety
/// Pointers must be valid for the given lengths.
#[no_mangle]
pub unsafe extern "C" fn enet_range_coder_compress(
    _context: *mut c_void,
    _inBuffers: *const ENetBuffer,
    _inBufferCount: usize,
    _inLimit: usize,
    _outData: *mut u8,
    _outLimit: usize,
) -> usize {
    0
}

/// # Safety
/// Pointers must be valid for the given lengths.
#[no_mangle]
pub unsafe extern "C" fn enet_range_coder_decompress(
    _context: *mut c_void,
    _inData: *const u8,
    _inLimit: usize,
    _outData: *mut u8,
    _outLimit: usize,
) -> usize {
    0
}
