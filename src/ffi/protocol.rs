//! `enet_protocol_command_size`: the fixed size of each command on the wire.

use crate::wire::command_size;

/// The size in bytes of command `commandNumber & 0x0F`, or 0 for numbers
/// without a command (13 to 15; stock reads past its table there).
/// cbindgen:prefix=extern
#[no_mangle]
pub extern "C" fn enet_protocol_command_size(commandNumber: u8) -> usize {
    guard!(0, command_size(commandNumber))
}
