//! IPv4 sockets on Windows, with the semantics of stock ENet's `win32.c`:
//! plain `socket`, `WSASendTo`/`WSARecvFrom` straight over the program's
//! `ENetBuffer`s (laid out as `WSABUF`), `select` for waiting, `ioctlsocket`
//! for non-blocking mode, millisecond `DWORD` timeouts.
//!
//! Results are `io::Result`s carrying the WinSock error; turning them into
//! ENet's return codes is the job of the `extern "C"` layer, which sees
//! "would block" as `ErrorKind::WouldBlock` on every system.

use core::ffi::c_int;
use core::mem::{offset_of, size_of, zeroed};
use core::ptr;
use std::io::{self, ErrorKind, IoSlice, IoSliceMut};

use windows_sys::Win32::Networking::WinSock::{
    accept as accept_socket, bind as bind_socket, closesocket, connect as connect_socket,
    getsockname, getsockopt, ioctlsocket, listen as listen_socket, select as select_sockets,
    setsockopt, shutdown as shutdown_socket, socket, WSARecvFrom, WSASendTo, AF_INET, AF_INET6,
    FD_SET, FIONBIO, IPPROTO_IP, IPPROTO_IPV6, IPPROTO_TCP, IPV6_UNICAST_HOPS, IP_TTL, MSG_PARTIAL,
    SOCKADDR, SOCKADDR_IN, SOCKADDR_STORAGE, SOCKET_ERROR, SOCK_DGRAM, SOCK_STREAM, SOL_SOCKET,
    SO_BROADCAST, SO_ERROR, SO_RCVBUF, SO_RCVTIMEO, SO_REUSEADDR, SO_SNDBUF, SO_SNDTIMEO,
    TCP_NODELAY, TIMEVAL, WSABUF, WSAECONNRESET, WSAEMSGSIZE, WSAEWOULDBLOCK,
};

use super::address::{from_sockaddr_in, sockaddr_in};
use super::{last_error, winsock_ready};
use crate::abi::{ENetAddress, ENetBuffer, ENetSocket, ENetSocketOption, ENetSocketSet};
use crate::abi::{ENetSocketType, ENET_SOCKET_NULL};
use crate::net::sys::{WAIT_RECEIVE, WAIT_SEND};

// `ENetBuffer` is handed to `WSASendTo`/`WSARecvFrom` as an array of
// `WSABUF`, as stock ENet does; these prove the layouts agree (WSABUF's
// 32-bit length is the low half of `dataLength` on little-endian Windows).
const _: () = {
    assert!(size_of::<ENetBuffer>() == size_of::<WSABUF>());
    assert!(offset_of!(ENetBuffer, dataLength) == offset_of!(WSABUF, len));
    assert!(offset_of!(ENetBuffer, data) == offset_of!(WSABUF, buf));
};

/// `SOMAXCONN` as `winsock2.h` defines it (windows-sys carries WinSock
/// 1's value).
const SOMAXCONN: c_int = 0x7fff_ffff;

/// Maps a `SOCKET_ERROR` result to the WinSock error.
fn check(result: c_int) -> io::Result<c_int> {
    if result == SOCKET_ERROR {
        Err(last_error())
    } else {
        Ok(result)
    }
}

/// Room for the address WinSock reports a peer or sender at, and its
/// length.
struct PeerName {
    sin: SOCKADDR_IN,
    length: c_int,
}

impl PeerName {
    fn new() -> Self {
        PeerName {
            // SAFETY: SOCKADDR_IN is plain old data; all zeroes is valid
            // (and reads as 0.0.0.0:0 for a peer the system does not name).
            sin: unsafe { zeroed() },
            length: SOCKADDR_IN_LENGTH,
        }
    }

    /// The name and length arguments of a call that reports a peer's
    /// address if `wanted`, or NULL ones that ask for none.
    fn out(&mut self, wanted: bool) -> (*mut SOCKADDR, *mut c_int) {
        if wanted {
            ((&mut self.sin as *mut SOCKADDR_IN).cast(), &mut self.length)
        } else {
            (ptr::null_mut(), ptr::null_mut())
        }
    }
}

/// Opens an IPv4 socket: UDP for `ENET_SOCKET_TYPE_DATAGRAM`, TCP for
/// anything else (stock treats every other value as a stream).
pub fn create(kind: c_int) -> io::Result<ENetSocket> {
    winsock_ready();
    let datagram = kind == ENetSocketType::ENET_SOCKET_TYPE_DATAGRAM as c_int;
    let socket_type = if datagram { SOCK_DGRAM } else { SOCK_STREAM };
    // SAFETY: plain system call with constant arguments.
    let created = unsafe { socket(i32::from(AF_INET), socket_type, 0) };
    if created == ENET_SOCKET_NULL {
        return Err(last_error());
    }
    Ok(created)
}

/// The size of a `SOCKADDR_IN`, as WinSock takes it.
const SOCKADDR_IN_LENGTH: c_int = size_of::<SOCKADDR_IN>() as c_int;

/// Binds to `address`, or to any interface and an ephemeral port if `None`.
pub fn bind(socket: ENetSocket, address: Option<&ENetAddress>) -> io::Result<()> {
    let sin = sockaddr_in(address.unwrap_or(&ENetAddress { host: 0, port: 0 }));
    // SAFETY: `sin` is a valid SOCKADDR_IN and its exact size is passed.
    let result = unsafe {
        bind_socket(
            socket,
            (&sin as *const SOCKADDR_IN).cast(),
            SOCKADDR_IN_LENGTH,
        )
    };
    check(result).map(drop)
}

/// The address the socket is bound to (`getsockname`).
pub fn local_address(socket: ENetSocket) -> io::Result<ENetAddress> {
    // SAFETY: SOCKADDR_IN is plain old data; all zeroes is valid.
    let mut sin: SOCKADDR_IN = unsafe { zeroed() };
    let mut length = SOCKADDR_IN_LENGTH;
    // SAFETY: `sin` is writable for `length` bytes.
    let result = unsafe { getsockname(socket, (&mut sin as *mut SOCKADDR_IN).cast(), &mut length) };
    check(result)?;
    Ok(from_sockaddr_in(&sin))
}

/// Listens for connections; a negative backlog means `SOMAXCONN`.
pub fn listen(socket: ENetSocket, backlog: c_int) -> io::Result<()> {
    let backlog = if backlog < 0 { SOMAXCONN } else { backlog };
    // SAFETY: plain system call on integers.
    check(unsafe { listen_socket(socket, backlog) }).map(drop)
}

/// Accepts a connection, returning the new socket and, if asked for, the
/// peer's address.
pub fn accept(
    socket: ENetSocket,
    want_address: bool,
) -> io::Result<(ENetSocket, Option<ENetAddress>)> {
    let mut peer = PeerName::new();
    let (name, name_length) = peer.out(want_address);
    // SAFETY: NULL, or the name's room, writable for its length.
    let accepted = unsafe { accept_socket(socket, name, name_length) };
    if accepted == ENET_SOCKET_NULL {
        return Err(last_error());
    }
    Ok((accepted, want_address.then(|| from_sockaddr_in(&peer.sin))))
}

/// Connects to `address`. A non-blocking connect still in progress
/// (`WSAEWOULDBLOCK`) counts as success, as in stock ENet.
pub fn connect(socket: ENetSocket, address: &ENetAddress) -> io::Result<()> {
    let sin = sockaddr_in(address);
    // SAFETY: `sin` is a valid SOCKADDR_IN and its exact size is passed.
    let result = unsafe {
        connect_socket(
            socket,
            (&sin as *const SOCKADDR_IN).cast(),
            SOCKADDR_IN_LENGTH,
        )
    };
    match check(result) {
        Err(error) if error.raw_os_error() == Some(WSAEWOULDBLOCK) => Ok(()),
        other => other.map(drop),
    }
}

/// Sends one datagram (or stream bytes) gathered from `count` buffers,
/// to `address` if given. Returns the bytes sent; "would block" is the
/// error `WouldBlock`.
///
/// # Safety
/// `buffers` must point to `count` `ENetBuffer`s (it may dangle when
/// `count` is 0), each readable for its length.
pub unsafe fn send(
    socket: ENetSocket,
    address: Option<&ENetAddress>,
    buffers: *const ENetBuffer,
    count: usize,
) -> io::Result<usize> {
    let sin = address.map(sockaddr_in);
    let (name, name_length) = match &sin {
        Some(sin) => (
            (sin as *const SOCKADDR_IN).cast::<SOCKADDR>(),
            SOCKADDR_IN_LENGTH,
        ),
        None => (ptr::null(), 0),
    };
    let mut sent = 0u32;
    // SAFETY: the buffers are WSABUF-compatible (asserted above) and
    // readable per the caller; `sin` lives until after the call.
    let result = unsafe {
        WSASendTo(
            socket,
            buffers.cast::<WSABUF>(),
            count as u32,
            &mut sent,
            0,
            name,
            name_length,
            ptr::null_mut(),
            None,
        )
    };
    check(result)?;
    Ok(sent as usize)
}

/// [`send`] over borrowed byte slices.
pub fn send_slices(
    socket: ENetSocket,
    address: Option<&ENetAddress>,
    slices: &[IoSlice<'_>],
) -> io::Result<usize> {
    let buffers: Vec<ENetBuffer> = slices
        .iter()
        .map(|slice| ENetBuffer {
            dataLength: slice.len(),
            data: slice.as_ptr().cast_mut().cast(),
        })
        .collect();
    // SAFETY: every buffer describes a readable slice borrowed for the
    // call.
    unsafe { send(socket, address, buffers.as_ptr(), buffers.len()) }
}

/// What one receive call got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Received {
    /// `length` bytes (0 on a closed stream, or after a reset: see
    /// [`receive`]); `from` is the sender when the caller asked for it.
    Data {
        length: usize,
        from: Option<ENetAddress>,
    },
    /// A datagram longer than the buffers: its tail was discarded.
    Truncated,
}

/// Receives one datagram (or stream bytes) scattered into `count`
/// buffers. "Would block" is the error `WouldBlock`. `WSAECONNRESET` (an
/// ICMP port-unreachable from a peer that went away, reported on the next
/// receive) is "nothing received", as stock reads it: 0 bytes, no sender.
///
/// # Safety
/// `buffers` must point to `count` `ENetBuffer`s (it may dangle when
/// `count` is 0) whose data is writable for `dataLength` bytes and not
/// otherwise borrowed during the call.
pub unsafe fn receive(
    socket: ENetSocket,
    want_address: bool,
    buffers: *mut ENetBuffer,
    count: usize,
) -> io::Result<Received> {
    let mut sender = PeerName::new();
    let (name, name_length) = sender.out(want_address);
    let mut received = 0u32;
    let mut flags = 0u32;
    // SAFETY: the buffers are WSABUF-compatible (asserted above) and
    // writable per the caller; `sender` lives until after the call.
    let result = unsafe {
        WSARecvFrom(
            socket,
            buffers.cast::<WSABUF>(),
            count as u32,
            &mut received,
            &mut flags,
            name,
            name_length,
            ptr::null_mut(),
            None,
        )
    };
    if let Err(error) = check(result) {
        return match error.raw_os_error() {
            Some(WSAECONNRESET) => Ok(Received::Data {
                length: 0,
                from: None,
            }),
            Some(WSAEMSGSIZE) => Ok(Received::Truncated),
            _ => Err(error),
        };
    }
    if flags & MSG_PARTIAL != 0 {
        return Ok(Received::Truncated);
    }
    let from = want_address.then(|| from_sockaddr_in(&sender.sin));
    Ok(Received::Data {
        length: received as usize,
        from,
    })
}

/// [`receive`] into borrowed byte slices.
pub fn receive_slices(
    socket: ENetSocket,
    want_address: bool,
    slices: &mut [IoSliceMut<'_>],
) -> io::Result<Received> {
    let mut buffers: Vec<ENetBuffer> = slices
        .iter_mut()
        .map(|slice| ENetBuffer {
            dataLength: slice.len(),
            data: slice.as_mut_ptr().cast(),
        })
        .collect();
    // SAFETY: every buffer describes a writable slice exclusively borrowed
    // for the call.
    unsafe { receive(socket, want_address, buffers.as_mut_ptr(), buffers.len()) }
}

/// An empty socket set.
pub(super) fn empty_set() -> FD_SET {
    FD_SET {
        fd_count: 0,
        fd_array: [0; 64],
    }
}

/// Whether `socket` is in `set`.
pub(super) fn set_holds(set: &FD_SET, socket: ENetSocket) -> bool {
    set.fd_array[..(set.fd_count as usize).min(set.fd_array.len())].contains(&socket)
}

/// Adds `socket` to `set` (which has room: at most two sockets here).
pub(super) fn set_add(set: &mut FD_SET, socket: ENetSocket) {
    let count = set.fd_count as usize;
    if count < set.fd_array.len() && !set_holds(set, socket) {
        set.fd_array[count] = socket;
        set.fd_count += 1;
    }
}

/// A `select` timeout of `timeout` ms.
pub(super) fn time_value(timeout: u32) -> TIMEVAL {
    TIMEVAL {
        tv_sec: (timeout / 1000) as i32,
        tv_usec: ((timeout % 1000) * 1000) as i32,
    }
}

/// Waits up to `timeout` ms for the socket to become ready for what
/// `condition` asks (`ENET_SOCKET_WAIT_SEND` / `_RECEIVE`) and returns the
/// conditions that hold (`ENET_SOCKET_WAIT_NONE` on timeout), through
/// `select` as stock does. Signals do not interrupt a Windows wait, so
/// `ENET_SOCKET_WAIT_INTERRUPT` is never reported.
pub fn wait(socket: ENetSocket, condition: u32, timeout: u32) -> io::Result<u32> {
    let mut read_set = empty_set();
    let mut write_set = empty_set();
    if condition & WAIT_SEND != 0 {
        set_add(&mut write_set, socket);
    }
    if condition & WAIT_RECEIVE != 0 {
        set_add(&mut read_set, socket);
    }
    let time = time_value(timeout);
    // SAFETY: both sets and the time are valid for the call; the first
    // argument is ignored by WinSock.
    let ready =
        check(unsafe { select_sockets(0, &mut read_set, &mut write_set, ptr::null_mut(), &time) })?;
    let mut ready_for = 0;
    if ready > 0 {
        if set_holds(&write_set, socket) {
            ready_for |= WAIT_SEND;
        }
        if set_holds(&read_set, socket) {
            ready_for |= WAIT_RECEIVE;
        }
    }
    Ok(ready_for)
}

/// The option value stock ENet does not handle.
fn unsupported_option() -> io::Error {
    io::Error::from(ErrorKind::Unsupported)
}

/// Sets one `ENET_SOCKOPT_*` option. `option` is the raw C value: any
/// value stock does not set (`ENET_SOCKOPT_ERROR`, garbage) fails without
/// a system call. `ENET_SOCKOPT_TTL` is 1.3.18's (1.3.17 refuses it).
pub fn set_option(socket: ENetSocket, option: c_int, value: c_int) -> io::Result<()> {
    use ENetSocketOption::*;
    let int_option = |level, name| set_int_option(socket, level, name, value);
    match option {
        o if o == ENET_SOCKOPT_NONBLOCK as c_int => {
            let mut nonblocking = value as u32;
            // SAFETY: FIONBIO takes a pointer to a u_long.
            check(unsafe { ioctlsocket(socket, FIONBIO, &mut nonblocking) }).map(drop)
        }
        o if o == ENET_SOCKOPT_BROADCAST as c_int => int_option(SOL_SOCKET, SO_BROADCAST),
        o if o == ENET_SOCKOPT_REUSEADDR as c_int => int_option(SOL_SOCKET, SO_REUSEADDR),
        o if o == ENET_SOCKOPT_RCVBUF as c_int => int_option(SOL_SOCKET, SO_RCVBUF),
        o if o == ENET_SOCKOPT_SNDBUF as c_int => int_option(SOL_SOCKET, SO_SNDBUF),
        // Windows takes the timeouts as a DWORD of milliseconds: the
        // value as it is, as stock passes it.
        o if o == ENET_SOCKOPT_RCVTIMEO as c_int => int_option(SOL_SOCKET, SO_RCVTIMEO),
        o if o == ENET_SOCKOPT_SNDTIMEO as c_int => int_option(SOL_SOCKET, SO_SNDTIMEO),
        o if o == ENET_SOCKOPT_NODELAY as c_int => int_option(IPPROTO_TCP, TCP_NODELAY),
        o if o == ENET_SOCKOPT_TTL as c_int => set_ttl(socket, value),
        _ => Err(unsupported_option()),
    }
}

/// Reads one `ENET_SOCKOPT_*` option: `ENET_SOCKOPT_ERROR` (the pending
/// socket error, which reading clears), as stock 1.3.17, and 1.3.18's
/// `ENET_SOCKOPT_TTL` (the hop limit on an IPv6 socket); any other fails.
pub fn get_option(socket: ENetSocket, option: c_int) -> io::Result<c_int> {
    use ENetSocketOption::*;
    match option {
        o if o == ENET_SOCKOPT_ERROR as c_int => get_int_option(socket, SOL_SOCKET, SO_ERROR),
        o if o == ENET_SOCKOPT_TTL as c_int && is_ipv6(socket) => {
            get_int_option(socket, IPPROTO_IPV6, IPV6_UNICAST_HOPS)
        }
        o if o == ENET_SOCKOPT_TTL as c_int => get_int_option(socket, IPPROTO_IP, IP_TTL),
        _ => Err(unsupported_option()),
    }
}

/// `ENET_SOCKOPT_TTL`: `IP_TTL`, as 1.3.18 sets it. An IPv6 socket (the
/// extensions' hosts) takes the hop limit of its IPv6 peers
/// (`IPV6_UNICAST_HOPS`), and `IP_TTL` too, which a dual-stack socket
/// applies to its IPv4 peers.
fn set_ttl(socket: ENetSocket, value: c_int) -> io::Result<()> {
    if !is_ipv6(socket) {
        return set_int_option(socket, IPPROTO_IP, IP_TTL, value);
    }
    set_int_option(socket, IPPROTO_IPV6, IPV6_UNICAST_HOPS, value)?;
    let _ = set_int_option(socket, IPPROTO_IP, IP_TTL, value);
    Ok(())
}

/// Whether the socket is an IPv6 one (an unbound socket, as
/// `enet_socket_create` makes them, is IPv4).
fn is_ipv6(socket: ENetSocket) -> bool {
    // SAFETY: SOCKADDR_STORAGE is plain old data; all zeroes is valid.
    let mut name: SOCKADDR_STORAGE = unsafe { zeroed() };
    let mut length = size_of::<SOCKADDR_STORAGE>() as c_int;
    // SAFETY: `name` is writable for `length` bytes.
    let result = unsafe {
        getsockname(
            socket,
            (&mut name as *mut SOCKADDR_STORAGE).cast(),
            &mut length,
        )
    };
    result == 0 && name.ss_family == AF_INET6
}

/// Reads an `int`-valued socket option (a one-byte answer, as some
/// options give, leaves the rest 0).
fn get_int_option(socket: ENetSocket, level: c_int, name: c_int) -> io::Result<c_int> {
    let mut value: c_int = 0;
    let mut length = size_of::<c_int>() as c_int;
    // SAFETY: `value` is writable for `length` bytes.
    let result = unsafe {
        getsockopt(
            socket,
            level,
            name,
            (&mut value as *mut c_int).cast(),
            &mut length,
        )
    };
    check(result)?;
    Ok(value)
}

/// Sets an `int`-valued socket option.
fn set_int_option(socket: ENetSocket, level: c_int, name: c_int, value: c_int) -> io::Result<()> {
    // SAFETY: `value` is a readable int of the size passed.
    let result = unsafe {
        setsockopt(
            socket,
            level,
            name,
            (&value as *const c_int).cast(),
            size_of::<c_int>() as c_int,
        )
    };
    check(result).map(drop)
}

/// Shuts down reading, writing or both; `how` is the raw
/// `ENET_SOCKET_SHUTDOWN_*` value, which equals `SD_RECEIVE/SEND/BOTH`.
pub fn shutdown(socket: ENetSocket, how: c_int) -> io::Result<()> {
    // SAFETY: plain system call on integers; a bad `how` is WSAEINVAL.
    check(unsafe { shutdown_socket(socket, how) }).map(drop)
}

/// Closes the socket; `ENET_SOCKET_NULL` (`INVALID_SOCKET`) is ignored.
pub fn destroy(socket: ENetSocket) {
    if socket != ENET_SOCKET_NULL {
        // SAFETY: the caller gives up this socket. Like stock, the result
        // is not reported.
        unsafe { closesocket(socket) };
    }
}

/// `select` over up to two socket sets with a millisecond timeout;
/// returns the number of ready sockets (0 on timeout). The sets are
/// updated in place to the ready sockets. `max_socket` is passed on as
/// stock does, and WinSock ignores it.
///
/// # Safety
/// Each set must be NULL or a valid, exclusively borrowed `fd_set`.
pub unsafe fn select(
    max_socket: ENetSocket,
    read_set: *mut ENetSocketSet,
    write_set: *mut ENetSocketSet,
    timeout: u32,
) -> io::Result<usize> {
    let time = time_value(timeout);
    // SAFETY: the sets are NULL or valid per the caller; `time` is valid.
    let ready = unsafe {
        select_sockets(
            max_socket.wrapping_add(1) as c_int,
            read_set,
            write_set,
            ptr::null_mut(),
            &time,
        )
    };
    check(ready).map(|count| count as usize)
}

/// Path MTU discovery's don't-fragment (`on`), or off again:
/// `IP_DONTFRAGMENT`, and `IPV6_DONTFRAG` on an IPv6 socket (with the
/// IPv4 option for its IPv4 peers), so a datagram larger than the path
/// the system knows is refused (`WSAEMSGSIZE`) rather than fragmented.
pub fn set_dont_fragment(socket: ENetSocket, on: bool) -> io::Result<()> {
    // The values of <ws2ipdef.h>.
    const IP_DONTFRAGMENT: c_int = 14;
    const IPV6_DONTFRAG: c_int = 14;
    let value = c_int::from(on);
    if !is_ipv6(socket) {
        return set_int_option(socket, IPPROTO_IP, IP_DONTFRAGMENT, value);
    }
    set_int_option(socket, IPPROTO_IPV6, IPV6_DONTFRAG, value)?;
    let _ = set_int_option(socket, IPPROTO_IP, IP_DONTFRAGMENT, value);
    Ok(())
}
