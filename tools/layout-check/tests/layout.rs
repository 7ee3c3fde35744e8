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
/// headers for x86_64-w64-mingw32 (bindgen's layout tests in stock.rs, and
/// mingw-w64's gcc, agree); only these differ from Linux.
#[cfg(all(windows, target_pointer_width = "64"))]
#[test]
fn the_windows_platform_sizes_are_stocks() {
    use core::mem::{align_of, offset_of, size_of};
    use enet::abi::{ENetBuffer, ENetHost, ENetSocket, ENetSocketSet};

    // SOCKET is a UINT_PTR; fd_set is a u_int count and 64 SOCKETs.
    assert_eq!((size_of::<ENetSocket>(), align_of::<ENetSocket>()), (8, 8));
    assert_eq!(
        (size_of::<ENetSocketSet>(), align_of::<ENetSocketSet>()),
        (520, 8)
    );
    assert_eq!(size_of::<ENetBuffer>(), 16);
    // ENetHost's head: an 8-byte socket, then everything after it 4 bytes
    // further on until `peers`, which is where it is on Linux.
    assert_eq!(offset_of!(ENetHost, socket), 0);
    assert_eq!(offset_of!(ENetHost, address), 8);
    assert_eq!(offset_of!(ENetHost, incomingBandwidth), 16);
    assert_eq!(offset_of!(ENetHost, mtu), 28);
    assert_eq!(offset_of!(ENetHost, recalculateBandwidthLimits), 36);
    assert_eq!(offset_of!(ENetHost, peers), 40);
    assert_eq!(offset_of!(ENetHost, buffers), 1656);
    assert_eq!(offset_of!(ENetHost, maximumWaitingData), 11016);
    // INVALID_SOCKET: all ones.
    assert_eq!(enet::abi::ENET_SOCKET_NULL, usize::MAX);
}

/// 32-bit Windows (i686-w64-mingw32), values measured with
/// i686-w64-mingw32-gcc on Debian's stock headers.
#[cfg(all(windows, target_pointer_width = "32"))]
#[test]
fn the_32_bit_windows_platform_sizes_are_stocks() {
    use core::mem::{align_of, offset_of, size_of};
    use enet::abi::{ENetBuffer, ENetHost, ENetSocket, ENetSocketSet};

    // SOCKET is a 4-byte UINT_PTR; fd_set is a u_int count and 64 SOCKETs.
    assert_eq!((size_of::<ENetSocket>(), align_of::<ENetSocket>()), (4, 4));
    assert_eq!(
        (size_of::<ENetSocketSet>(), align_of::<ENetSocketSet>()),
        (260, 4)
    );
    assert_eq!(size_of::<ENetBuffer>(), 8);
    // ENetHost's head: a 4-byte socket, then the address (4-byte host,
    // 2-byte port, padded to 8).
    assert_eq!(offset_of!(ENetHost, socket), 0);
    assert_eq!(offset_of!(ENetHost, address), 4);
    assert_eq!(offset_of!(ENetHost, incomingBandwidth), 12);
    assert_eq!(offset_of!(ENetHost, mtu), 24);
    assert_eq!(offset_of!(ENetHost, recalculateBandwidthLimits), 32);
    assert_eq!(offset_of!(ENetHost, peers), 36);
    assert_eq!(offset_of!(ENetHost, buffers), 1612);
    assert_eq!(offset_of!(ENetHost, maximumWaitingData), 10400);
    assert_eq!(size_of::<ENetHost>(), 10404);
    // INVALID_SOCKET: all ones, 32 bits of them.
    assert_eq!(enet::abi::ENET_SOCKET_NULL, usize::MAX);
    assert_eq!(enet::abi::ENET_SOCKET_NULL as u64, 0xffff_ffff);
}

/// On Windows ENetBuffer is WSABUF-ordered: the length, then the pointer
/// (the reverse of Unix's iovec order), in stock's header and in ours.
#[cfg(all(windows, target_pointer_width = "64"))]
#[test]
fn enet_buffer_is_length_then_data_on_windows() {
    use core::mem::offset_of;
    use layout_check::stock;

    assert_eq!(offset_of!(stock::ENetBuffer, dataLength), 0);
    assert_eq!(offset_of!(stock::ENetBuffer, data), 8);
    assert_eq!(offset_of!(enet::abi::ENetBuffer, dataLength), 0);
    assert_eq!(offset_of!(enet::abi::ENetBuffer, data), 8);
}

/// The same order on 32-bit Windows, with 4-byte fields.
#[cfg(all(windows, target_pointer_width = "32"))]
#[test]
fn enet_buffer_is_length_then_data_on_32_bit_windows() {
    use core::mem::offset_of;
    use layout_check::stock;

    assert_eq!(offset_of!(stock::ENetBuffer, dataLength), 0);
    assert_eq!(offset_of!(stock::ENetBuffer, data), 4);
    assert_eq!(offset_of!(enet::abi::ENetBuffer, dataLength), 0);
    assert_eq!(offset_of!(enet::abi::ENetBuffer, data), 4);
}
