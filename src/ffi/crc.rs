//! `enet_crc32`, the checksum a program may install as `host->checksum`.

use crate::abi::ENetBuffer;
use crate::wire::crc32::Crc32;

/// CRC-32 over the buffers, returned in network byte order as stock ENet
/// does. NULL `buffers`, or a buffer with NULL data, count as empty.
///
/// # Safety
/// `buffers` must be NULL or point to `bufferCount` buffers whose data is
/// readable for `dataLength` bytes.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_crc32(buffers: *const ENetBuffer, bufferCount: usize) -> u32 {
    guard!(0, {
        let mut crc = Crc32::new();
        if let Some(buffers) = arg_buffers!(buffers, bufferCount) {
            for bytes in buffers.bytes() {
                crc.update(bytes);
            }
        }
        crc.finish_wire()
    })
}
