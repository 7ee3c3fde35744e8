//! UDP segmentation offload (Linux): a run of equal-size datagrams to one
//! peer leaves in one `UDP_SEGMENT` send, which the kernel (or the network
//! card) cuts into ordinary datagrams, and a socket with `UDP_GRO` may be
//! handed several datagrams of one sender coalesced, with their size in a
//! control message. The datagrams on the wire are the ones sent without
//! offload, so a stock receiver sees no difference; only the system calls
//! and the kernel's per-datagram work shrink.
//!
//! `ENET_RS_UDP_OFFLOAD=off` turns both off (a host's `config::Switches::udp_offload`).

use core::ffi::c_int;
use core::mem::size_of;
use core::ptr;

use crate::abi::ENetSocket;

/// `setsockopt`/`cmsg` level and types, from `<linux/udp.h>`.
const UDP_SEGMENT: c_int = 103;
const UDP_GRO: c_int = 104;

/// Most datagrams one segmented send may carry (the kernel's limit).
pub const MAX_SEGMENTS: usize = 64;
/// Most bytes one segmented send or one coalesced receive carries: the
/// largest UDP payload over IPv4.
pub const MAX_RUN_BYTES: usize = 65_507;

/// Room for one control message carrying a `c_int` or a `u16`, aligned as
/// `cmsghdr` requires.
pub type ControlBuffer = [u64; 4];

/// Asks the kernel to coalesce received datagrams on `socket`; whether it
/// agreed.
pub fn enable_gro(socket: ENetSocket) -> bool {
    let on: c_int = 1;
    // SAFETY: `on` is a readable c_int of the size passed; a bad socket
    // only makes the call fail.
    let result = unsafe {
        libc::setsockopt(
            socket,
            libc::IPPROTO_UDP,
            UDP_GRO,
            ptr::addr_of!(on).cast(),
            size_of::<c_int>() as libc::socklen_t,
        )
    };
    result == 0
}

/// Writes a `UDP_SEGMENT` control message for segments of `segment` bytes
/// into `buffer`; the control length to pass with it.
pub fn write_segment(buffer: &mut ControlBuffer, segment: u16) -> usize {
    *buffer = [0; 4];
    // SAFETY: CMSG_SPACE/CMSG_LEN are arithmetic.
    let (space, length) = unsafe {
        (
            libc::CMSG_SPACE(size_of::<u16>() as u32) as usize,
            libc::CMSG_LEN(size_of::<u16>() as u32) as usize,
        )
    };
    debug_assert!(space <= size_of::<ControlBuffer>());
    // SAFETY: a zeroed msghdr is valid; it only describes `buffer`.
    let mut header: libc::msghdr = unsafe { core::mem::zeroed() };
    header.msg_control = buffer.as_mut_ptr().cast();
    header.msg_controllen = space;
    // SAFETY: `buffer` holds `space` bytes, aligned for cmsghdr (u64), so
    // the first header and its data fit inside it.
    unsafe {
        let message = libc::CMSG_FIRSTHDR(&header);
        (*message).cmsg_level = libc::IPPROTO_UDP;
        (*message).cmsg_type = UDP_SEGMENT;
        (*message).cmsg_len = length;
        ptr::write_unaligned(libc::CMSG_DATA(message).cast::<u16>(), segment);
    }
    space
}

/// The datagram size of a coalesced receive, from its control data;
/// `None` if the kernel did not coalesce it.
pub fn read_gro(header: &libc::msghdr) -> Option<usize> {
    if header.msg_control.is_null() || header.msg_controllen == 0 {
        return None;
    }
    // SAFETY: the kernel filled `msg_controllen` bytes of the header's own
    // control buffer with well-formed control messages, which the CMSG
    // walk stays inside of.
    unsafe {
        let mut message = libc::CMSG_FIRSTHDR(header);
        while !message.is_null() {
            if (*message).cmsg_level == libc::IPPROTO_UDP && (*message).cmsg_type == UDP_GRO {
                let size = ptr::read_unaligned(libc::CMSG_DATA(message).cast::<c_int>());
                return usize::try_from(size).ok().filter(|&size| size > 0);
            }
            message = libc::CMSG_NXTHDR(header, message);
        }
    }
    None
}
