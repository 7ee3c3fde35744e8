//! IPv4 sockets on Unix, with the semantics of stock ENet's `unix.c`.
//!
//! Sockets are raw file descriptors (`ENetSocket`) owned by whoever created
//! them, usually a C program, so this module works on descriptors rather
//! than on owning types such as `socket2::Socket` (which would close them
//! on drop and reject `-1`). Each function makes the same system calls as
//! stock ENet 1.3.17 with the same flags — no `SOCK_CLOEXEC`, plain
//! `accept`, `MSG_NOSIGNAL` — so descriptors behave identically across
//! `fork`/`exec`, and `errno` is left as that call set it.
//!
//! Results are `io::Result`s carrying the OS error; turning them into
//! ENet's return codes (0 / -1, 0 for "would block", ...) is the job of
//! the `extern "C"` layer.

use core::ffi::c_int;
use core::mem::{offset_of, size_of, zeroed};
use core::ptr;
use std::io::{self, ErrorKind, IoSlice, IoSliceMut};

use super::address::{from_sockaddr_in, sockaddr_in};
use crate::abi::ENetSocketType;
use crate::abi::{ENetAddress, ENetBuffer, ENetSocket, ENetSocketOption, ENetSocketSet};
use crate::net::sys::{WAIT_INTERRUPT, WAIT_RECEIVE, WAIT_SEND};

// `ENetBuffer` is handed to `sendmsg`/`recvmsg` as an array of `iovec`,
// as stock ENet does; these prove the layouts agree.
const _: () = {
    assert!(size_of::<ENetBuffer>() == size_of::<libc::iovec>());
    assert!(core::mem::align_of::<ENetBuffer>() == core::mem::align_of::<libc::iovec>());
    assert!(offset_of!(ENetBuffer, data) == offset_of!(libc::iovec, iov_base));
    assert!(offset_of!(ENetBuffer, dataLength) == offset_of!(libc::iovec, iov_len));
};

/// Maps a `-1`-on-error system call result to the OS error.
fn check(result: c_int) -> io::Result<c_int> {
    if result == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result)
    }
}

/// Maps a `-1`-on-error length result to the OS error.
fn check_length(result: isize) -> io::Result<usize> {
    usize::try_from(result).map_err(|_| io::Error::last_os_error())
}

/// Opens an IPv4 socket: UDP for `ENET_SOCKET_TYPE_DATAGRAM`, TCP for
/// anything else (stock treats every other value as a stream).
pub fn create(kind: c_int) -> io::Result<ENetSocket> {
    let datagram = kind == ENetSocketType::ENET_SOCKET_TYPE_DATAGRAM as c_int;
    let socket_type = if datagram {
        libc::SOCK_DGRAM
    } else {
        libc::SOCK_STREAM
    };
    // SAFETY: plain system call with constant arguments.
    check(unsafe { libc::socket(libc::PF_INET, socket_type, 0) })
}

/// Binds to `address`, or to any interface and an ephemeral port if `None`.
pub fn bind(socket: ENetSocket, address: Option<&ENetAddress>) -> io::Result<()> {
    let sin = sockaddr_in(address.unwrap_or(&ENetAddress { host: 0, port: 0 }));
    // SAFETY: `sin` is a valid sockaddr_in and its exact size is passed.
    let result = unsafe {
        libc::bind(
            socket,
            (&sin as *const libc::sockaddr_in).cast(),
            size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    check(result).map(drop)
}

/// The address the socket is bound to (`getsockname`).
pub fn local_address(socket: ENetSocket) -> io::Result<ENetAddress> {
    // SAFETY: sockaddr_in is plain old data; all zeroes is valid.
    let mut sin: libc::sockaddr_in = unsafe { zeroed() };
    let mut length = size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: `sin` is writable for `length` bytes; the kernel truncates
    // longer addresses to that length.
    let result = unsafe {
        libc::getsockname(
            socket,
            (&mut sin as *mut libc::sockaddr_in).cast(),
            &mut length,
        )
    };
    check(result)?;
    Ok(from_sockaddr_in(&sin))
}

/// Listens for connections; a negative backlog means `SOMAXCONN`.
pub fn listen(socket: ENetSocket, backlog: c_int) -> io::Result<()> {
    let backlog = if backlog < 0 {
        libc::SOMAXCONN
    } else {
        backlog
    };
    // SAFETY: plain system call on integers.
    check(unsafe { libc::listen(socket, backlog) }).map(drop)
}

/// Accepts a connection, returning the new socket and, if asked for, the
/// peer's address. Without `want_address` the kernel is asked for none,
/// as stock does for a NULL address.
pub fn accept(
    socket: ENetSocket,
    want_address: bool,
) -> io::Result<(ENetSocket, Option<ENetAddress>)> {
    if !want_address {
        // SAFETY: NULL address and length are allowed and mean "don't report".
        let accepted = check(unsafe { libc::accept(socket, ptr::null_mut(), ptr::null_mut()) })?;
        return Ok((accepted, None));
    }
    // SAFETY: sockaddr_in is plain old data; all zeroes is valid.
    let mut sin: libc::sockaddr_in = unsafe { zeroed() };
    let mut length = size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: `sin` is writable for `length` bytes.
    let accepted = check(unsafe {
        libc::accept(
            socket,
            (&mut sin as *mut libc::sockaddr_in).cast(),
            &mut length,
        )
    })?;
    Ok((accepted, Some(from_sockaddr_in(&sin))))
}

/// Connects to `address`. A non-blocking connect still in progress
/// (`EINPROGRESS`) counts as success, as in stock ENet.
pub fn connect(socket: ENetSocket, address: &ENetAddress) -> io::Result<()> {
    let sin = sockaddr_in(address);
    // SAFETY: `sin` is a valid sockaddr_in and its exact size is passed.
    let result = unsafe {
        libc::connect(
            socket,
            (&sin as *const libc::sockaddr_in).cast(),
            size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    match check(result) {
        Err(error) if error.raw_os_error() == Some(libc::EINPROGRESS) => Ok(()),
        other => other.map(drop),
    }
}

/// Sends one datagram (or stream bytes) gathered from `count` buffers,
/// to `address` if given. Returns the bytes sent; "would block" is the
/// OS error `WouldBlock`.
///
/// # Safety
/// `buffers` must point to `count` `ENetBuffer`s (it may dangle when
/// `count` is 0). Their data pointers are only handed to the kernel,
/// which reports unreadable ones as `EFAULT`.
pub unsafe fn send(
    socket: ENetSocket,
    address: Option<&ENetAddress>,
    buffers: *const ENetBuffer,
    count: usize,
) -> io::Result<usize> {
    let mut sin = address.map(sockaddr_in);
    // SAFETY: msghdr is plain old data; all zeroes is "no name, no data".
    let mut message: libc::msghdr = unsafe { zeroed() };
    if let Some(sin) = sin.as_mut() {
        message.msg_name = (sin as *mut libc::sockaddr_in).cast();
        message.msg_namelen = size_of::<libc::sockaddr_in>() as libc::socklen_t;
    }
    message.msg_iov = buffers.cast_mut().cast::<libc::iovec>();
    message.msg_iovlen = count as _;
    // SAFETY: `message` points at `sin` (alive until after the call) and
    // at the caller's `count` iovec-compatible buffers.
    check_length(unsafe { libc::sendmsg(socket, &message, libc::MSG_NOSIGNAL) })
}

/// [`send`] over borrowed byte slices.
pub fn send_slices(
    socket: ENetSocket,
    address: Option<&ENetAddress>,
    slices: &[IoSlice<'_>],
) -> io::Result<usize> {
    // SAFETY: `IoSlice` is ABI-compatible with `iovec` (and so with
    // `ENetBuffer`), and every slice is readable for its length.
    unsafe { send(socket, address, slices.as_ptr().cast(), slices.len()) }
}

/// What one receive call got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Received {
    /// `length` bytes (0 on a closed stream); `from` is the sender when
    /// the caller asked for it.
    Data {
        length: usize,
        from: Option<ENetAddress>,
    },
    /// A datagram longer than the buffers: its tail was discarded.
    Truncated,
}

/// Receives one datagram (or stream bytes) scattered into `count`
/// buffers. "Would block" is the OS error `WouldBlock`.
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
    // SAFETY: sockaddr_in is plain old data; all zeroes is valid. Zeroed
    // so that a sender the kernel does not name (a connected stream)
    // reads as 0.0.0.0:0 rather than stack garbage.
    let mut sin: libc::sockaddr_in = unsafe { zeroed() };
    // SAFETY: msghdr is plain old data; all zeroes is "no name, no data".
    let mut message: libc::msghdr = unsafe { zeroed() };
    if want_address {
        message.msg_name = (&mut sin as *mut libc::sockaddr_in).cast();
        message.msg_namelen = size_of::<libc::sockaddr_in>() as libc::socklen_t;
    }
    message.msg_iov = buffers.cast::<libc::iovec>();
    message.msg_iovlen = count as _;
    // SAFETY: `message` points at `sin` (alive until after the call) and
    // at the caller's `count` writable iovec-compatible buffers.
    let length = check_length(unsafe { libc::recvmsg(socket, &mut message, libc::MSG_NOSIGNAL) })?;
    if message.msg_flags & libc::MSG_TRUNC != 0 {
        return Ok(Received::Truncated);
    }
    let from = want_address.then(|| from_sockaddr_in(&sin));
    Ok(Received::Data { length, from })
}

/// [`receive`] into borrowed byte slices.
pub fn receive_slices(
    socket: ENetSocket,
    want_address: bool,
    slices: &mut [IoSliceMut<'_>],
) -> io::Result<Received> {
    // SAFETY: `IoSliceMut` is ABI-compatible with `iovec` (and so with
    // `ENetBuffer`), and every slice is exclusively borrowed and writable.
    unsafe {
        receive(
            socket,
            want_address,
            slices.as_mut_ptr().cast(),
            slices.len(),
        )
    }
}

/// Waits up to `timeout` ms for the socket to become ready for what
/// `condition` asks (`ENET_SOCKET_WAIT_SEND` / `_RECEIVE`) and returns the
/// conditions that hold (`ENET_SOCKET_WAIT_NONE` on timeout). If a signal
/// interrupts the wait and `condition` includes
/// `ENET_SOCKET_WAIT_INTERRUPT`, returns just that flag; otherwise the
/// interruption is an error. As in stock, the timeout goes to `poll` as a
/// C `int`, so values above `i32::MAX` wait forever.
pub fn wait(socket: ENetSocket, condition: u32, timeout: u32) -> io::Result<u32> {
    let mut events = 0;
    if condition & WAIT_SEND != 0 {
        events |= libc::POLLOUT;
    }
    if condition & WAIT_RECEIVE != 0 {
        events |= libc::POLLIN;
    }
    let mut poll_socket = libc::pollfd {
        fd: socket,
        events,
        revents: 0,
    };
    // SAFETY: one valid pollfd; the cast reproduces C's int conversion.
    let ready = unsafe { libc::poll(&mut poll_socket, 1, timeout as c_int) };
    if ready < 0 {
        let error = io::Error::last_os_error();
        if error.kind() == ErrorKind::Interrupted && condition & WAIT_INTERRUPT != 0 {
            return Ok(WAIT_INTERRUPT);
        }
        return Err(error);
    }
    let mut ready_for = 0;
    if ready > 0 {
        if poll_socket.revents & libc::POLLOUT != 0 {
            ready_for |= WAIT_SEND;
        }
        if poll_socket.revents & libc::POLLIN != 0 {
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
        o if o == ENET_SOCKOPT_NONBLOCK as c_int => set_nonblocking(socket, value != 0),
        o if o == ENET_SOCKOPT_BROADCAST as c_int => {
            int_option(libc::SOL_SOCKET, libc::SO_BROADCAST)
        }
        o if o == ENET_SOCKOPT_REUSEADDR as c_int => {
            int_option(libc::SOL_SOCKET, libc::SO_REUSEADDR)
        }
        o if o == ENET_SOCKOPT_RCVBUF as c_int => int_option(libc::SOL_SOCKET, libc::SO_RCVBUF),
        o if o == ENET_SOCKOPT_SNDBUF as c_int => int_option(libc::SOL_SOCKET, libc::SO_SNDBUF),
        o if o == ENET_SOCKOPT_RCVTIMEO as c_int => set_timeout(socket, libc::SO_RCVTIMEO, value),
        o if o == ENET_SOCKOPT_SNDTIMEO as c_int => set_timeout(socket, libc::SO_SNDTIMEO, value),
        o if o == ENET_SOCKOPT_NODELAY as c_int => int_option(libc::IPPROTO_TCP, libc::TCP_NODELAY),
        o if o == ENET_SOCKOPT_TTL as c_int => set_ttl(socket, value),
        _ => Err(unsupported_option()),
    }
}

/// `ENET_SOCKOPT_TTL`: `IP_TTL`, as 1.3.18 sets it. An IPv6 socket (the
/// extensions' hosts) takes the hop limit of its IPv6 peers
/// (`IPV6_UNICAST_HOPS`), and `IP_TTL` too where the system applies it
/// to a dual-stack socket's IPv4 peers.
fn set_ttl(socket: ENetSocket, value: c_int) -> io::Result<()> {
    if !is_ipv6(socket) {
        return set_int_option(socket, libc::IPPROTO_IP, libc::IP_TTL, value);
    }
    set_int_option(socket, libc::IPPROTO_IPV6, libc::IPV6_UNICAST_HOPS, value)?;
    let _ = set_int_option(socket, libc::IPPROTO_IP, libc::IP_TTL, value);
    Ok(())
}

/// Whether the socket is an IPv6 one (an unbound or unnamed socket, as
/// `enet_socket_create` makes them, is IPv4).
fn is_ipv6(socket: ENetSocket) -> bool {
    // SAFETY: sockaddr_storage is plain old data; all zeroes is valid.
    let mut name: libc::sockaddr_storage = unsafe { zeroed() };
    let mut length = size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    // SAFETY: `name` is writable for `length` bytes.
    let result = unsafe {
        libc::getsockname(
            socket,
            (&mut name as *mut libc::sockaddr_storage).cast(),
            &mut length,
        )
    };
    result == 0 && c_int::from(name.ss_family) == libc::AF_INET6
}

/// Reads one `ENET_SOCKOPT_*` option: `ENET_SOCKOPT_ERROR` (the pending
/// socket error, which reading clears), as stock 1.3.17, and 1.3.18's
/// `ENET_SOCKOPT_TTL` (the hop limit on an IPv6 socket); any other fails.
pub fn get_option(socket: ENetSocket, option: c_int) -> io::Result<c_int> {
    use ENetSocketOption::*;
    match option {
        o if o == ENET_SOCKOPT_ERROR as c_int => {
            get_int_option(socket, libc::SOL_SOCKET, libc::SO_ERROR)
        }
        o if o == ENET_SOCKOPT_TTL as c_int && is_ipv6(socket) => {
            get_int_option(socket, libc::IPPROTO_IPV6, libc::IPV6_UNICAST_HOPS)
        }
        o if o == ENET_SOCKOPT_TTL as c_int => {
            get_int_option(socket, libc::IPPROTO_IP, libc::IP_TTL)
        }
        _ => Err(unsupported_option()),
    }
}

/// Reads an `int`-valued socket option.
fn get_int_option(socket: ENetSocket, level: c_int, name: c_int) -> io::Result<c_int> {
    let mut value: c_int = 0;
    let mut length = size_of::<c_int>() as libc::socklen_t;
    // SAFETY: `value` is writable for `length` bytes.
    let result = unsafe {
        libc::getsockopt(
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

/// Switches `O_NONBLOCK` on or off, keeping the other status flags.
fn set_nonblocking(socket: ENetSocket, nonblocking: bool) -> io::Result<()> {
    // SAFETY: F_GETFL takes no argument. Like stock, a failure (-1) is not
    // checked here: the F_SETFL below then fails with the same error.
    let flags = unsafe { libc::fcntl(socket, libc::F_GETFL) };
    let wanted = if nonblocking { libc::O_NONBLOCK } else { 0 };
    // SAFETY: F_SETFL takes an int of flags.
    check(unsafe { libc::fcntl(socket, libc::F_SETFL, wanted | (flags & !libc::O_NONBLOCK)) })
        .map(drop)
}

/// Sets an `int`-valued socket option.
fn set_int_option(socket: ENetSocket, level: c_int, name: c_int, value: c_int) -> io::Result<()> {
    // SAFETY: `value` is a readable int of the size passed.
    let result = unsafe {
        libc::setsockopt(
            socket,
            level,
            name,
            (&value as *const c_int).cast(),
            size_of::<c_int>() as libc::socklen_t,
        )
    };
    check(result).map(drop)
}

/// Sets a `timeval` timeout from milliseconds, split with C's truncating
/// division as stock does (so a negative value gives a negative
/// `tv_usec`, which the kernel rejects).
fn set_timeout(socket: ENetSocket, name: c_int, milliseconds: c_int) -> io::Result<()> {
    let time = libc::timeval {
        tv_sec: (milliseconds / 1000) as libc::time_t,
        tv_usec: ((milliseconds % 1000) * 1000) as libc::suseconds_t,
    };
    // SAFETY: `time` is a readable timeval of the size passed.
    let result = unsafe {
        libc::setsockopt(
            socket,
            libc::SOL_SOCKET,
            name,
            (&time as *const libc::timeval).cast(),
            size_of::<libc::timeval>() as libc::socklen_t,
        )
    };
    check(result).map(drop)
}

/// Shuts down reading, writing or both; `how` is the raw
/// `ENET_SOCKET_SHUTDOWN_*` value, which equals `SHUT_RD/WR/RDWR`.
pub fn shutdown(socket: ENetSocket, how: c_int) -> io::Result<()> {
    // SAFETY: plain system call on integers; a bad `how` is EINVAL.
    check(unsafe { libc::shutdown(socket, how) }).map(drop)
}

/// Closes the socket; `ENET_SOCKET_NULL` (-1) is ignored.
pub fn destroy(socket: ENetSocket) {
    if socket != crate::abi::ENET_SOCKET_NULL {
        // SAFETY: the caller gives up this descriptor. Like stock, the
        // result (EBADF for a stale descriptor) is not reported.
        unsafe { libc::close(socket) };
    }
}

/// `select` over up to two socket sets with a millisecond timeout;
/// returns the number of ready sockets (0 on timeout). The sets are
/// updated in place to the ready sockets.
///
/// # Safety
/// Each set must be NULL or a valid, exclusively borrowed `fd_set`, and
/// `max_socket` must be below `FD_SETSIZE` when a set is given (the limit
/// C's `FD_SET` already imposes).
pub unsafe fn select(
    max_socket: ENetSocket,
    read_set: *mut ENetSocketSet,
    write_set: *mut ENetSocketSet,
    timeout: u32,
) -> io::Result<usize> {
    let mut time = libc::timeval {
        tv_sec: (timeout / 1000) as libc::time_t,
        tv_usec: ((timeout % 1000) * 1000) as libc::suseconds_t,
    };
    // SAFETY: the sets are NULL or valid per the caller; `time` is a valid
    // timeval. A bad descriptor count is EINVAL from the kernel.
    let ready = unsafe {
        libc::select(
            max_socket.wrapping_add(1),
            read_set,
            write_set,
            ptr::null_mut(),
            &mut time,
        )
    };
    check(ready).map(|count| count as usize)
}

/// Path MTU discovery's don't-fragment (`on`), or the system's default
/// back: datagrams leave unfragmented, and one larger than the path the
/// system knows is refused (`EMSGSIZE`) rather than cut into IP fragments.
/// Linux: `IP_MTU_DISCOVER` = `IP_PMTUDISC_DO` (off: `IP_PMTUDISC_WANT`,
/// its default) and `IPV6_MTU_DISCOVER` on an IPv6 socket. FreeBSD and
/// macOS: `IP_DONTFRAG` and `IPV6_DONTFRAG`. An IPv6 socket also sets the
/// IPv4 option where the system applies it to its IPv4 peers. Elsewhere:
/// unsupported.
pub fn set_dont_fragment(socket: ENetSocket, on: bool) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let (ipv4, ipv6) = if on {
        (
            (libc::IP_MTU_DISCOVER, libc::IP_PMTUDISC_DO),
            (libc::IPV6_MTU_DISCOVER, libc::IPV6_PMTUDISC_DO),
        )
    } else {
        (
            (libc::IP_MTU_DISCOVER, libc::IP_PMTUDISC_WANT),
            (libc::IPV6_MTU_DISCOVER, libc::IPV6_PMTUDISC_WANT),
        )
    };
    // The values of <netinet/in.h> and <netinet6/in6.h>.
    #[cfg(target_os = "freebsd")]
    let (ipv4, ipv6) = ((67, c_int::from(on)), (62, c_int::from(on)));
    #[cfg(any(target_os = "macos", target_os = "ios"))]
    let (ipv4, ipv6) = ((28, c_int::from(on)), (62, c_int::from(on)));
    #[cfg(any(
        target_os = "linux",
        target_os = "android",
        target_os = "freebsd",
        target_os = "macos",
        target_os = "ios"
    ))]
    {
        let (v4_name, v4_value) = ipv4;
        if !is_ipv6(socket) {
            return set_int_option(socket, libc::IPPROTO_IP, v4_name, v4_value);
        }
        let (v6_name, v6_value) = ipv6;
        set_int_option(socket, libc::IPPROTO_IPV6, v6_name, v6_value)?;
        let _ = set_int_option(socket, libc::IPPROTO_IP, v4_name, v4_value);
        Ok(())
    }
    #[cfg(not(any(
        target_os = "linux",
        target_os = "android",
        target_os = "freebsd",
        target_os = "macos",
        target_os = "ios"
    )))]
    {
        let _ = (socket, on);
        Err(unsupported_option())
    }
}
