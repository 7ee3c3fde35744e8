//! The `enet_address_*` entry points: parsing and printing edge cases,
//! resolver shorthands, buffer sizes around the needed one, NULL pointers.
//!
//! Expected values were taken from stock ENet 1.3.17 on this machine (see
//! tests-c/diff_address.c, which compares every case with stock). Only
//! names that need no DNS server are used.

use core::ffi::{c_char, c_int, CStr};
use core::ptr;
use std::ffi::CString;

use enet::abi::ENetAddress;
use enet::ffi::address::*;

const UNTOUCHED: u32 = 0x1111_1111;

fn host(a: u8, b: u8, c: u8, d: u8) -> u32 {
    u32::from_ne_bytes([a, b, c, d])
}

fn set_host_ip(text: &str) -> (c_int, u32) {
    let text = CString::new(text).unwrap();
    let mut address = ENetAddress {
        host: UNTOUCHED,
        port: 4242,
    };
    // SAFETY: valid address and C string.
    let result = unsafe { enet_address_set_host_ip(&mut address, text.as_ptr()) };
    assert_eq!(address.port, 4242, "port is never touched");
    (result, address.host)
}

fn set_host(text: &str) -> (c_int, u32) {
    let text = CString::new(text).unwrap();
    let mut address = ENetAddress {
        host: UNTOUCHED,
        port: 4242,
    };
    // SAFETY: valid address and C string.
    let result = unsafe { enet_address_set_host(&mut address, text.as_ptr()) };
    assert_eq!(address.port, 4242, "port is never touched");
    (result, address.host)
}

/// Calls a getter with a '#'-filled 24-byte buffer, claiming `length`.
fn get(
    getter: unsafe extern "C" fn(*const ENetAddress, *mut c_char, usize) -> c_int,
    host: u32,
    length: usize,
) -> (c_int, String) {
    let address = ENetAddress { host, port: 1 };
    let mut buffer = [b'#'; 24];
    assert!(length <= buffer.len());
    // SAFETY: the buffer is writable for `length` bytes.
    let result = unsafe { getter(&address, buffer.as_mut_ptr().cast(), length) };
    let shown = buffer
        .iter()
        .map(|&b| if b == 0 { '|' } else { b as char })
        .collect();
    (result, shown)
}

#[test]
fn set_host_ip_accepts_only_dotted_quads() {
    assert_eq!(set_host_ip("1.2.3.4"), (0, host(1, 2, 3, 4)));
    assert_eq!(set_host_ip("255.255.255.255"), (0, 0xFFFF_FFFF));
    assert_eq!(set_host_ip("0.0.0.0"), (0, 0));
    assert_eq!(set_host_ip("10.0.100.250"), (0, host(10, 0, 100, 250)));
    for bad in [
        "1.2.3",
        "1.2",
        "1",
        "127.1",
        "01.2.3.4",
        "1.2.3.00",
        "017.0.0.1",
        "1.2.3.256",
        "256.1.1.1",
        " 1.2.3.4",
        "1.2.3.4 ",
        "1.2.3.4x",
        "1.2.3.4.",
        ".1.2.3.4",
        "1..2.3",
        "1.2.3.4.5",
        "0x7f.0.0.1",
        "+1.2.3.4",
        "::1",
        "4294967295",
        "",
        "localhost",
        "\u{661}.2.3.4",
    ] {
        assert_eq!(set_host_ip(bad), (-1, UNTOUCHED), "{bad:?}");
    }
}

/// The C library's resolver on Unix, as stock's `unix.c` calls it.
#[test]
#[cfg(unix)]
fn set_host_takes_resolver_shorthands() {
    assert_eq!(set_host("1.2.3.4"), (0, host(1, 2, 3, 4)));
    assert_eq!(set_host("255.255.255.255"), (0, 0xFFFF_FFFF));
    // The resolver reads these the inet_aton way.
    assert_eq!(set_host("1.2.3"), (0, host(1, 2, 0, 3)));
    assert_eq!(set_host("1.2"), (0, host(1, 0, 0, 2)));
    assert_eq!(set_host("1"), (0, host(0, 0, 0, 1)));
    assert_eq!(set_host("127.1"), (0, host(127, 0, 0, 1)));
    assert_eq!(set_host("017.0.0.1"), (0, host(15, 0, 0, 1)));
    assert_eq!(set_host("0x7f.1"), (0, host(127, 0, 0, 1)));
    assert_eq!(set_host("4294967295"), (0, 0xFFFF_FFFF));
    assert_eq!(set_host("localhost"), (0, host(127, 0, 0, 1)));
    assert_eq!(set_host("LOCALHOST"), (0, host(127, 0, 0, 1)));
    // Resolved, but with no IPv4 result; then not a dotted quad either.
    assert_eq!(set_host("::1"), (-1, UNTOUCHED));
    assert_eq!(set_host("::ffff:1.2.3.4"), (-1, UNTOUCHED));
    // Refused by the resolver without asking a server.
    assert_eq!(set_host(""), (-1, UNTOUCHED));
    assert_eq!(set_host(&"a".repeat(300)), (-1, UNTOUCHED));
}

#[test]
fn get_host_ip_needs_room_for_the_nul() {
    let localhost = host(127, 0, 0, 1);
    for length in 0..10 {
        assert_eq!(
            get(enet_address_get_host_ip, localhost, length),
            (-1, "#".repeat(24))
        );
    }
    let fits = (0, format!("127.0.0.1|{}", "#".repeat(14)));
    assert_eq!(get(enet_address_get_host_ip, localhost, 10), fits);
    assert_eq!(get(enet_address_get_host_ip, localhost, 24), fits);

    assert_eq!(get(enet_address_get_host_ip, u32::MAX, 15).0, -1);
    assert_eq!(
        get(enet_address_get_host_ip, u32::MAX, 16),
        (0, format!("255.255.255.255|{}", "#".repeat(8)))
    );
    assert_eq!(
        get(enet_address_get_host_ip, 0, 8),
        (0, format!("0.0.0.0|{}", "#".repeat(16)))
    );
    assert_eq!(
        get(enet_address_get_host_ip, host(13, 12, 11, 10), 11).0,
        -1
    );
    assert_eq!(
        get(enet_address_get_host_ip, host(13, 12, 11, 10), 12).1,
        format!("13.12.11.10|{}", "#".repeat(12))
    );
}

/// Windows' resolver: names and dotted quads resolve, nonsense does not.
#[test]
#[cfg(windows)]
fn set_host_resolves_names_and_dotted_quads() {
    assert_eq!(set_host("1.2.3.4"), (0, host(1, 2, 3, 4)));
    assert_eq!(set_host("255.255.255.255"), (0, 0xFFFF_FFFF));
    assert_eq!(set_host("localhost"), (0, host(127, 0, 0, 1)));
    // (An empty name is this machine, as Windows' resolver reads it.)
    assert_eq!(set_host(&"a".repeat(300)), (-1, UNTOUCHED));
}

/// A reverse lookup that finds no name prints the address, on Windows
/// whatever the reason (stock's `win32.c` rule); a name or number that
/// does not fit is refused without writing.
#[test]
#[cfg(windows)]
fn get_host_falls_back_to_the_number_or_refuses_a_short_buffer() {
    let unnamed = host(192, 0, 2, 1);
    assert_eq!(
        get(enet_address_get_host, unnamed, 24),
        (0, format!("192.0.2.1|{}", "#".repeat(14)))
    );
    for length in 0..10 {
        assert_eq!(
            get(enet_address_get_host, unnamed, length),
            (-1, "#".repeat(24)),
            "length {length}"
        );
    }
}

/// The C library's reverse lookup on Unix, as stock's `unix.c` calls it.
#[test]
#[cfg(unix)]
fn get_host_names_localhost() {
    let localhost = host(127, 0, 0, 1);
    // Length 0 asks the resolver for nothing, which it calls success.
    assert_eq!(
        get(enet_address_get_host, localhost, 0),
        (0, "#".repeat(24))
    );
    for length in 1..10 {
        assert_eq!(
            get(enet_address_get_host, localhost, length),
            (-1, "#".repeat(24)),
            "length {length}"
        );
    }
    let named = (0, format!("localhost|{}", "#".repeat(14)));
    assert_eq!(get(enet_address_get_host, localhost, 10), named);
    assert_eq!(get(enet_address_get_host, localhost, 24), named);
}

#[test]
fn null_pointers_fail_instead_of_crashing() {
    let mut address = ENetAddress {
        host: UNTOUCHED,
        port: 0,
    };
    let text = c"1.2.3.4";
    let mut buffer = [0 as c_char; 32];
    // SAFETY: every pointer is valid or NULL.
    unsafe {
        assert_eq!(enet_address_set_host_ip(ptr::null_mut(), text.as_ptr()), -1);
        assert_eq!(enet_address_set_host_ip(&mut address, ptr::null()), -1);
        assert_eq!(enet_address_set_host(ptr::null_mut(), text.as_ptr()), -1);
        assert_eq!(enet_address_set_host(&mut address, ptr::null()), -1);
        assert_eq!(address.host, UNTOUCHED);
        assert_eq!(
            enet_address_get_host_ip(ptr::null(), buffer.as_mut_ptr(), 32),
            -1
        );
        assert_eq!(enet_address_get_host_ip(&address, ptr::null_mut(), 32), -1);
        assert_eq!(
            enet_address_get_host(ptr::null(), buffer.as_mut_ptr(), 32),
            -1
        );
        assert_eq!(enet_address_get_host(&address, ptr::null_mut(), 32), -1);
        assert_eq!(enet_address_get_host(&address, ptr::null_mut(), 0), -1);
        // And the same calls work with real pointers.
        assert_eq!(enet_address_set_host_ip(&mut address, text.as_ptr()), 0);
        assert_eq!(
            enet_address_get_host_ip(&address, buffer.as_mut_ptr(), 32),
            0
        );
        assert_eq!(CStr::from_ptr(buffer.as_ptr()), text);
    }
}
