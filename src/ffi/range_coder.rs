//! `compress.c`: the `enet_range_coder_*` entry points over
//! [`RangeCoder`]. The context C holds is a boxed `RangeCoder`; C only ever
//! hands it back to us (directly, or through an `ENetCompressor`).

use core::ffi::c_void;
use core::ptr;

use crate::abi::ENetBuffer;
use crate::wire::range_coder::RangeCoder;

/// Creates a range-coder context; NULL if memory is short.
#[no_mangle]
pub extern "C" fn enet_range_coder_create() -> *mut c_void {
    guard!(ptr::null_mut(), {
        match RangeCoder::try_new() {
            Some(coder) => Box::into_raw(Box::new(coder)).cast::<c_void>(),
            None => ptr::null_mut(),
        }
    })
}

/// Destroys a context; NULL is ignored.
///
/// # Safety
/// `context` must be NULL or come from `enet_range_coder_create` and not be
/// used afterwards.
/// Any thread, one at a time per coder context; it touches no host, so
/// a host's callbacks may call it (it is one, as a compressor).
#[no_mangle]
pub unsafe extern "C" fn enet_range_coder_destroy(context: *mut c_void) {
    guard!((), {
        drop(take_box!(context.cast::<RangeCoder>()));
    })
}

/// Compresses the buffers into `outData`; returns the compressed length, or
/// 0 if it would exceed `outLimit`, the input is empty, or an argument is
/// NULL. As in stock, `inLimit` only has to be non-zero: the buffers'
/// own lengths say how much is read.
///
/// An empty buffer after the first is read as stock 1.3.17 reads it: its
/// input loop moves to the next buffer and takes one byte before checking
/// that buffer's length, so the byte at that buffer's `data` is coded too.
/// We do the same so the output is byte-identical; where stock would crash
/// (a NULL `data`) we return 0 instead.
///
/// # Safety
/// `context` must come from `enet_range_coder_create`; `inBuffers` must be
/// NULL or point to `inBufferCount` buffers whose data is readable for
/// `dataLength` bytes (for an empty buffer after the first: NULL, or
/// readable for one byte, as stock requires); `outData` must be NULL or
/// writable for `outLimit` bytes, not overlapping the input.
/// Any thread, one at a time per coder context; it touches no host, so
/// a host's callbacks may call it (it is one, as a compressor).
#[no_mangle]
pub unsafe extern "C" fn enet_range_coder_compress(
    context: *mut c_void,
    inBuffers: *const ENetBuffer,
    inBufferCount: usize,
    inLimit: usize,
    outData: *mut u8,
    outLimit: usize,
) -> usize {
    guard!(0, {
        if context.is_null() || inBuffers.is_null() || outData.is_null() {
            return 0;
        }
        if inBufferCount == 0 || inLimit == 0 {
            return 0;
        }
        let Some(buffers) = arg_buffers!(inBuffers, inBufferCount) else {
            return 0;
        };
        let buffers = buffers.as_slice();
        // The bytes stock reads from each buffer: an empty buffer after the
        // first still gives the one byte at its `data`.
        let read_length = |index: usize, buffer: &ENetBuffer| match buffer.dataLength {
            0 if index == 0 => 0,
            0 => 1,
            length => length,
        };
        if buffers
            .iter()
            .enumerate()
            .any(|(index, buffer)| buffer.data.is_null() && read_length(index, buffer) != 0)
        {
            return 0;
        }
        let parts = buffers.iter().enumerate().map(|(index, buffer)| {
            match read_length(index, buffer) {
                0 => &[][..],
                // Non-NULL (checked above); readable for `dataLength` bytes,
                // or for the one byte stock reads from an empty buffer after
                // the first (this function's `# Safety`).
                length => arg_bytes!(buffer.data, length),
            }
        });
        let Some(coder) = arg_mut!(context.cast::<RangeCoder>()) else {
            return 0;
        };
        coder.compress_parts(parts, arg_bytes_mut!(outData, outLimit))
    })
}

/// Decompresses `inLimit` bytes into `outData`; returns the decompressed
/// length, or 0 on corrupt or empty input, output over `outLimit`, or a
/// NULL argument.
///
/// # Safety
/// `context` must come from `enet_range_coder_create`; `inData` must be
/// NULL or readable for `inLimit` bytes; `outData` must be NULL or writable
/// for `outLimit` bytes, not overlapping the input.
/// Any thread, one at a time per coder context; it touches no host, so
/// a host's callbacks may call it (it is one, as a compressor).
#[no_mangle]
pub unsafe extern "C" fn enet_range_coder_decompress(
    context: *mut c_void,
    inData: *const u8,
    inLimit: usize,
    outData: *mut u8,
    outLimit: usize,
) -> usize {
    guard!(0, {
        if context.is_null() || inData.is_null() || outData.is_null() || inLimit == 0 {
            return 0;
        }
        let input = arg_bytes!(inData, inLimit);
        let out = arg_bytes_mut!(outData, outLimit);
        let Some(coder) = arg_mut!(context.cast::<RangeCoder>()) else {
            return 0;
        };
        coder.decompress(input, out)
    })
}
