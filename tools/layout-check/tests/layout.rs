//! Every struct size, alignment and field offset, every enum value and every
//! integer constant of the stock header, compared with ours.

use layout_check::{layout_checks, value_checks};

#[test]
fn every_type_field_and_size_matches_stock() {
    let checks = layout_checks();
    // The header has 30 structs/unions with hundreds of fields between them;
    // a generator that saw almost nothing must not pass silently.
    assert!(
        checks.len() > 400,
        "only {} layout checks generated",
        checks.len()
    );
    let wrong: Vec<_> = checks.iter().filter(|c| c.ours != c.stock).collect();
    assert!(
        wrong.is_empty(),
        "layout differs from stock ENet: {wrong:#?}"
    );
}

#[test]
fn every_enum_value_and_constant_matches_stock() {
    let checks = value_checks();
    assert!(
        checks.len() > 100,
        "only {} value checks generated",
        checks.len()
    );
    let wrong: Vec<_> = checks.iter().filter(|c| c.ours != c.stock).collect();
    assert!(
        wrong.is_empty(),
        "values differ from stock ENet: {wrong:#?}"
    );
}

#[test]
fn the_core_sizes_are_the_documented_ones() {
    // Independent of bindgen: the sizes programs rely on (host->peers[i]),
    // as each target's own C compiler gives them for stock's headers
    // (gcc's `sizeof`, docs/platforms.md). They are the same on Windows:
    // its wider SOCKET moves only the fields before `peers` in ENetHost,
    // into what is padding on Linux. On 32-bit targets pointers and size_t
    // are 4 bytes; ENetProtocol, the wire's union, has no pointers.
    use core::mem::size_of;
    #[cfg(target_pointer_width = "64")]
    let (peer, host, packet, event) = (456, 11024, 48, 32);
    #[cfg(target_pointer_width = "32")]
    let (peer, host, packet, event) = (376, 10404, 24, 20);
    assert_eq!(size_of::<enet::abi::ENetPeer>(), peer);
    assert_eq!(size_of::<enet::abi::ENetHost>(), host);
    assert_eq!(size_of::<enet::abi::ENetPacket>(), packet);
    assert_eq!(size_of::<enet::abi::ENetEvent>(), event);
    assert_eq!(size_of::<enet::abi::ENetProtocol>(), 48);
}

/// Stock's Windows sizes and offsets, as clang lays out Debian's stock
/// headers for x86_64-w64-mingw32 and i686-w64-mingw32 (bindgen's layout
/// tests in stock.rs, and mingw-w64's gcc on each, agree); only these
/// differ from Linux.
#[cfg(windows)]
#[test]
fn the_windows_platform_sizes_are_stocks() {
    use core::mem::{align_of, offset_of, size_of};
    use enet::abi::{ENetBuffer, ENetHost, ENetSocket, ENetSocketSet};

    // SOCKET is a UINT_PTR; fd_set is a u_int count and 64 SOCKETs.
    // ENetHost's head is its fields up to `buffers`, then the last one.
    // 64-bit: an 8-byte socket, then everything after it 4 bytes further
    // on until `peers`, which is where it is on Linux.
    #[cfg(target_pointer_width = "64")]
    let (socket, fd_set, buffer, host_head, host, socket_null) = (
        8,
        520,
        16,
        [0, 8, 16, 28, 36, 40, 1656, 11016],
        11024,
        u64::MAX,
    );
    // 32-bit: a 4-byte socket, then the address (4-byte host, 2-byte port,
    // padded to 8).
    #[cfg(target_pointer_width = "32")]
    let (socket, fd_set, buffer, host_head, host, socket_null) = (
        4,
        260,
        8,
        [0, 4, 12, 24, 32, 36, 1612, 10400],
        10404,
        0xffff_ffff,
    );
    assert_eq!(
        (size_of::<ENetSocket>(), align_of::<ENetSocket>()),
        (socket, socket)
    );
    assert_eq!(
        (size_of::<ENetSocketSet>(), align_of::<ENetSocketSet>()),
        (fd_set, socket)
    );
    assert_eq!(size_of::<ENetBuffer>(), buffer);
    assert_eq!(
        [
            offset_of!(ENetHost, socket),
            offset_of!(ENetHost, address),
            offset_of!(ENetHost, incomingBandwidth),
            offset_of!(ENetHost, mtu),
            offset_of!(ENetHost, recalculateBandwidthLimits),
            offset_of!(ENetHost, peers),
            offset_of!(ENetHost, buffers),
            offset_of!(ENetHost, maximumWaitingData),
        ],
        host_head,
        "ENetHost: socket, address, incomingBandwidth, mtu, \
         recalculateBandwidthLimits, peers, buffers, maximumWaitingData"
    );
    assert_eq!(size_of::<ENetHost>(), host);
    // INVALID_SOCKET: all ones.
    assert_eq!(enet::abi::ENET_SOCKET_NULL, usize::MAX);
    assert_eq!(enet::abi::ENET_SOCKET_NULL as u64, socket_null);
}

/// On Windows ENetBuffer is WSABUF-ordered: the length, then the pointer
/// (the reverse of Unix's iovec order), in stock's header and in ours; the
/// pointer follows a length of the pointer's width.
#[cfg(windows)]
#[test]
fn enet_buffer_is_length_then_data_on_windows() {
    use core::mem::offset_of;
    use layout_check::stock;

    #[cfg(target_pointer_width = "64")]
    let data = 8;
    #[cfg(target_pointer_width = "32")]
    let data = 4;
    assert_eq!(offset_of!(stock::ENetBuffer, dataLength), 0);
    assert_eq!(offset_of!(stock::ENetBuffer, data), data);
    assert_eq!(offset_of!(enet::abi::ENetBuffer, dataLength), 0);
    assert_eq!(offset_of!(enet::abi::ENetBuffer, data), data);
}
