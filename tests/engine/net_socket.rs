//! The `enet_socket_*` entry points over loopback: UDP scatter/gather,
//! non-blocking receive, truncated datagrams, waiting, options, TCP
//! listen/connect/accept, NULL and out-of-range arguments.
//!
//! Expected values are stock ENet 1.3.17's (checked by running stock, see
//! tests-c/diff_socket.c), except the truncated-datagram result, where we
//! deliberately return -2 like ENet 1.3.18+. On Windows (run under wine)
//! they are those of stock's `win32.c`; the `os` module names what differs.

use core::ffi::c_int;
use core::ptr;
use std::io;
use std::time::{Duration, Instant};

use enet::abi::{ENetAddress, ENetBuffer, ENetSocket, ENET_SOCKET_NULL};
use enet::ffi::socket::*;

const STREAM: c_int = 1;
const DATAGRAM: c_int = 2;

const NONBLOCK: c_int = 1;
const BROADCAST: c_int = 2;
const RCVBUF: c_int = 3;
const SNDBUF: c_int = 4;
const REUSEADDR: c_int = 5;
const RCVTIMEO: c_int = 6;
const SNDTIMEO: c_int = 7;
const ERROR: c_int = 8;
const NODELAY: c_int = 9;
/// ENet 1.3.18's `ENET_SOCKOPT_TTL`.
const TTL: c_int = 10;

const WAIT_NONE: u32 = 0;
const WAIT_SEND: u32 = 1;
const WAIT_RECEIVE: u32 = 2;
const WAIT_INTERRUPT: u32 = 4;

/// A socket number that is not open (900 is far above what a test process
/// opens on Unix; on Windows any small multiple of 4 is a handle no one
/// made).
const NOT_OPEN: ENetSocket = 900;

/// The system's names and calls the checks read back through.
#[cfg(unix)]
mod os {
    use core::ffi::c_int;

    pub use libc::{
        IPPROTO_TCP, SOCK_DGRAM, SOCK_STREAM, SOL_SOCKET, SO_BROADCAST, SO_RCVBUF, SO_RCVTIMEO,
        SO_REUSEADDR, SO_SNDBUF, SO_SNDTIMEO, SO_TYPE, TCP_NODELAY,
    };
    /// Sending on an unconnected socket without a destination.
    pub const NO_DESTINATION: &[c_int] = &[libc::EDESTADDRREQ];
    /// A socket number that is not open.
    pub const NOT_A_SOCKET: c_int = libc::EBADF;
}

#[cfg(windows)]
mod os {
    use core::ffi::c_int;

    pub use windows_sys::Win32::Networking::WinSock::{
        IPPROTO_TCP, SOCK_DGRAM, SOCK_STREAM, SOL_SOCKET, SO_BROADCAST, SO_RCVBUF, SO_RCVTIMEO,
        SO_REUSEADDR, SO_SNDBUF, SO_SNDTIMEO, SO_TYPE, TCP_NODELAY,
    };
    use windows_sys::Win32::Networking::WinSock::{WSAEDESTADDRREQ, WSAEINVAL, WSAENOTCONN};
    /// Sending on an unconnected socket without a destination (wine says
    /// WSAEINVAL).
    pub const NO_DESTINATION: &[c_int] = &[WSAEDESTADDRREQ, WSAENOTCONN, WSAEINVAL];
    /// A socket number that is not open.
    pub const NOT_A_SOCKET: c_int = windows_sys::Win32::Networking::WinSock::WSAENOTSOCK;
}

/// 127.0.0.1 as `ENetAddress::host` stores it (network byte order).
const LOOPBACK: u32 = u32::from_ne_bytes([127, 0, 0, 1]);

/// Closes the socket when the test ends, however it ends.
struct Socket(ENetSocket);

impl Drop for Socket {
    fn drop(&mut self) {
        enet_socket_destroy(self.0);
    }
}

fn errno() -> Option<i32> {
    io::Error::last_os_error().raw_os_error()
}

fn loopback(port: u16) -> ENetAddress {
    ENetAddress {
        host: LOOPBACK,
        port,
    }
}

fn address_of(socket: ENetSocket) -> ENetAddress {
    let mut address = ENetAddress::default();
    // SAFETY: `address` is a valid ENetAddress.
    assert_eq!(unsafe { enet_socket_get_address(socket, &mut address) }, 0);
    address
}

/// A UDP socket bound to 127.0.0.1 on a free port; blocking receives
/// give up after 2 s so no test can hang.
fn udp() -> (Socket, ENetAddress) {
    let socket = Socket(enet_socket_create(DATAGRAM));
    assert_ne!(socket.0, ENET_SOCKET_NULL);
    // SAFETY: a valid address.
    assert_eq!(unsafe { enet_socket_bind(socket.0, &loopback(0)) }, 0);
    assert_eq!(enet_socket_set_option(socket.0, RCVTIMEO, 2000), 0);
    let address = address_of(socket.0);
    assert_eq!(address.host, LOOPBACK);
    assert_ne!(address.port, 0);
    (socket, address)
}

fn buffer(bytes: &mut [u8]) -> ENetBuffer {
    ENetBuffer {
        data: bytes.as_mut_ptr().cast(),
        dataLength: bytes.len(),
    }
}

fn send(socket: ENetSocket, to: Option<&ENetAddress>, parts: &mut [&mut [u8]]) -> c_int {
    let buffers: Vec<ENetBuffer> = parts.iter_mut().map(|part| buffer(part)).collect();
    let to = to.map_or(ptr::null(), |address| address as *const ENetAddress);
    // SAFETY: every buffer points into a live slice.
    unsafe { enet_socket_send(socket, to, buffers.as_ptr(), buffers.len()) }
}

fn receive(socket: ENetSocket, from: Option<&mut ENetAddress>, parts: &mut [&mut [u8]]) -> c_int {
    let mut buffers: Vec<ENetBuffer> = parts.iter_mut().map(|part| buffer(part)).collect();
    let from = from.map_or(ptr::null_mut(), |address| address as *mut ENetAddress);
    // SAFETY: every buffer points into a live, exclusively borrowed slice.
    unsafe { enet_socket_receive(socket, from, buffers.as_mut_ptr(), buffers.len()) }
}

fn wait(socket: ENetSocket, condition: u32, timeout: u32) -> (c_int, u32) {
    let mut condition = condition;
    // SAFETY: `condition` is a valid u32.
    let result = unsafe { enet_socket_wait(socket, &mut condition, timeout) };
    (result, condition)
}

#[test]
fn udp_scatter_gather_round_trip() {
    let (receiver, receiver_address) = udp();
    let (sender, sender_address) = udp();
    let sent = send(
        sender.0,
        Some(&receiver_address),
        &mut [&mut *b"abc".to_vec(), &mut [], &mut *b"defgh".to_vec()],
    );
    assert_eq!(sent, 8);

    let (mut first, mut second) = ([b'.'; 4], [b'.'; 10]);
    let mut from = ENetAddress::default();
    let received = receive(receiver.0, Some(&mut from), &mut [&mut first, &mut second]);
    assert_eq!(received, 8);
    assert_eq!(&first, b"abcd");
    assert_eq!(&second, b"efgh......");
    assert_eq!(from, sender_address);

    // An empty datagram is sent and received as 0 bytes.
    assert_eq!(send(sender.0, Some(&receiver_address), &mut []), 0);
    let mut from = loopback(1);
    assert_eq!(receive(receiver.0, Some(&mut from), &mut [&mut second]), 0);
    assert_eq!(from, sender_address);
}

#[test]
fn nonblocking_receive_returns_zero_and_leaves_address() {
    let (receiver, _) = udp();
    assert_eq!(enet_socket_set_option(receiver.0, NONBLOCK, 1), 0);
    let mut from = loopback(7);
    let mut data = [0u8; 16];
    let started = Instant::now();
    assert_eq!(receive(receiver.0, Some(&mut from), &mut [&mut data]), 0);
    assert_eq!(receive(receiver.0, None, &mut [&mut data]), 0);
    assert!(started.elapsed() < Duration::from_millis(500));
    assert_eq!(from, loopback(7));
}

#[test]
fn truncated_datagram_returns_minus_two_and_is_dropped() {
    // Stock 1.3.17 returns -1 here (which makes enet_host_service fail);
    // we return -2 like ENet 1.3.18+ so that a host skips the datagram.
    let (receiver, receiver_address) = udp();
    let (sender, _) = udp();
    let mut big = [7u8; 100];
    assert_eq!(
        send(sender.0, Some(&receiver_address), &mut [&mut big]),
        100
    );
    assert_eq!(
        send(
            sender.0,
            Some(&receiver_address),
            &mut [&mut *b"ok".to_vec()]
        ),
        2
    );

    let mut small = [0u8; 10];
    let mut from = loopback(9);
    assert_eq!(receive(receiver.0, Some(&mut from), &mut [&mut small]), -2);
    assert_eq!(
        from,
        loopback(9),
        "address not written for a truncated datagram"
    );
    assert_eq!(small, [7u8; 10], "the buffer holds the datagram's head");

    // The oversized datagram is gone; the next one arrives intact.
    assert_eq!(receive(receiver.0, Some(&mut from), &mut [&mut small]), 2);
    assert_eq!(&small[..2], b"ok");
}

#[test]
fn send_and_receive_report_errors() {
    let (receiver, receiver_address) = udp();
    let mut data = *b"data";
    // Unconnected UDP with no destination.
    assert_eq!(send(receiver.0, None, &mut [&mut data]), -1);
    assert!(
        os::NO_DESTINATION.contains(&errno().unwrap()),
        "{:?}",
        errno()
    );
    // A descriptor that is not open.
    assert_eq!(
        send(NOT_OPEN, Some(&receiver_address), &mut [&mut data]),
        -1
    );
    assert_eq!(errno(), Some(os::NOT_A_SOCKET));
    assert_eq!(receive(NOT_OPEN, None, &mut [&mut data]), -1);
    assert_eq!(errno(), Some(os::NOT_A_SOCKET));
    // NULL buffers with a count: -1 instead of a crash.
    // SAFETY: NULL buffers are rejected before use.
    unsafe {
        assert_eq!(
            enet_socket_send(receiver.0, &receiver_address, ptr::null(), 2),
            -1
        );
        assert_eq!(
            enet_socket_receive(receiver.0, ptr::null_mut(), ptr::null_mut(), 2),
            -1
        );
    }
}

#[test]
fn wait_times_out_then_sees_data() {
    let (receiver, receiver_address) = udp();
    let (sender, _) = udp();

    let started = Instant::now();
    assert_eq!(wait(receiver.0, WAIT_RECEIVE, 60), (0, WAIT_NONE));
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(50),
        "returned after {waited:?}"
    );
    assert!(waited < Duration::from_secs(2), "returned after {waited:?}");

    assert_eq!(wait(receiver.0, WAIT_SEND, 1000), (0, WAIT_SEND));

    assert_eq!(
        send(
            sender.0,
            Some(&receiver_address),
            &mut [&mut *b"x".to_vec()]
        ),
        1
    );
    assert_eq!(wait(receiver.0, WAIT_RECEIVE, 1000), (0, WAIT_RECEIVE));
    assert_eq!(
        wait(receiver.0, WAIT_SEND | WAIT_RECEIVE | WAIT_INTERRUPT, 1000),
        (0, WAIT_SEND | WAIT_RECEIVE)
    );
    // NULL condition: -1 instead of a crash.
    // SAFETY: NULL is rejected before use.
    assert_eq!(
        unsafe { enet_socket_wait(receiver.0, ptr::null_mut(), 0) },
        -1
    );
}

#[cfg(unix)]
extern "C" fn ignore_signal(_: c_int) {}

/// Signals cut a Unix wait short; Windows waits know no signals.
#[test]
#[cfg(unix)]
fn wait_interrupted_by_a_signal() {
    let (receiver, _) = udp();
    // SAFETY: installs a handler that does nothing, without SA_RESTART, so
    // that a blocked poll returns EINTR.
    unsafe {
        let mut action: libc::sigaction = core::mem::zeroed();
        action.sa_sigaction = ignore_signal as *const () as usize;
        libc::sigemptyset(&mut action.sa_mask);
        assert_eq!(libc::sigaction(libc::SIGUSR2, &action, ptr::null_mut()), 0);
    }
    // SAFETY: pthread_self has no preconditions.
    let waiter = unsafe { libc::pthread_self() };
    let interrupt_soon = || {
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            // SAFETY: the waiting thread outlives this call (it is joined
            // after the wait returns, which needs this signal or a timeout).
            unsafe { libc::pthread_kill(waiter, libc::SIGUSR2) };
        })
    };

    let signaller = interrupt_soon();
    let started = Instant::now();
    let outcome = wait(receiver.0, WAIT_RECEIVE | WAIT_INTERRUPT, 5000);
    signaller.join().unwrap();
    assert_eq!(outcome, (0, WAIT_INTERRUPT));
    assert!(started.elapsed() < Duration::from_secs(4));

    // Without the INTERRUPT flag the interruption is an error and the
    // condition is left as it was.
    let signaller = interrupt_soon();
    let (result, condition) = wait(receiver.0, WAIT_RECEIVE, 5000);
    let error = errno();
    signaller.join().unwrap();
    assert_eq!(
        (result, condition, error),
        (-1, WAIT_RECEIVE, Some(libc::EINTR))
    );
}

/// Reads an `int` socket option back (on Windows some options, such as
/// `TCP_NODELAY`, come back as one byte: the rest stays 0).
fn int_option(socket: ENetSocket, level: c_int, name: c_int) -> c_int {
    let mut value: c_int = if cfg!(windows) { 0 } else { -1 };
    #[cfg(unix)]
    // SAFETY: `value` is writable for `length` bytes.
    let result = unsafe {
        let mut length = core::mem::size_of::<c_int>() as libc::socklen_t;
        libc::getsockopt(
            socket,
            level,
            name,
            (&mut value as *mut c_int).cast(),
            &mut length,
        )
    };
    #[cfg(windows)]
    // SAFETY: `value` is writable for `length` bytes.
    let result = unsafe {
        let mut length = core::mem::size_of::<c_int>() as c_int;
        windows_sys::Win32::Networking::WinSock::getsockopt(
            socket,
            level,
            name,
            (&mut value as *mut c_int).cast(),
            &mut length,
        )
    };
    assert_eq!(result, 0);
    value
}

/// Reads a timeout option back: a `timeval` on Unix, milliseconds on
/// Windows.
fn timeout_option(socket: ENetSocket, name: c_int) -> Duration {
    #[cfg(unix)]
    {
        // SAFETY: timeval is plain old data.
        let mut time: libc::timeval = unsafe { core::mem::zeroed() };
        let mut length = core::mem::size_of::<libc::timeval>() as libc::socklen_t;
        // SAFETY: `time` is writable for `length` bytes.
        let result = unsafe {
            libc::getsockopt(
                socket,
                libc::SOL_SOCKET,
                name,
                (&mut time as *mut libc::timeval).cast(),
                &mut length,
            )
        };
        assert_eq!(result, 0);
        Duration::from_secs(time.tv_sec as u64) + Duration::from_micros(time.tv_usec as u64)
    }
    #[cfg(windows)]
    {
        Duration::from_millis(int_option(socket, os::SOL_SOCKET, name) as u32 as u64)
    }
}

/// Whether a socket is in non-blocking mode (Unix can say; Windows keeps
/// no readable flag, so `nonblocking_receive_returns_zero...` shows it).
#[cfg(unix)]
fn is_nonblocking(socket: ENetSocket) -> Option<bool> {
    // SAFETY: F_GETFL on an open descriptor.
    Some(unsafe { libc::fcntl(socket, libc::F_GETFL) } & libc::O_NONBLOCK != 0)
}

#[cfg(windows)]
fn is_nonblocking(_socket: ENetSocket) -> Option<bool> {
    None
}

#[test]
fn options_set_what_they_name() {
    let (udp, _) = udp();
    let tcp = Socket(enet_socket_create(STREAM));

    assert_eq!(enet_socket_set_option(udp.0, NONBLOCK, 1), 0);
    assert_ne!(is_nonblocking(udp.0), Some(false));
    assert_eq!(enet_socket_set_option(udp.0, NONBLOCK, 0), 0);
    assert_ne!(is_nonblocking(udp.0), Some(true));

    assert_eq!(enet_socket_set_option(udp.0, BROADCAST, 1), 0);
    assert_eq!(int_option(udp.0, os::SOL_SOCKET, os::SO_BROADCAST), 1);
    assert_eq!(enet_socket_set_option(udp.0, REUSEADDR, 1), 0);
    assert_eq!(int_option(udp.0, os::SOL_SOCKET, os::SO_REUSEADDR), 1);
    assert_eq!(enet_socket_set_option(udp.0, RCVBUF, 65536), 0);
    assert!(int_option(udp.0, os::SOL_SOCKET, os::SO_RCVBUF) >= 65536);
    assert_eq!(enet_socket_set_option(udp.0, SNDBUF, 32768), 0);
    assert!(int_option(udp.0, os::SOL_SOCKET, os::SO_SNDBUF) >= 32768);
    assert_eq!(enet_socket_set_option(udp.0, RCVTIMEO, 1500), 0);
    assert_eq!(
        timeout_option(udp.0, os::SO_RCVTIMEO),
        Duration::from_millis(1500)
    );
    assert_eq!(enet_socket_set_option(udp.0, SNDTIMEO, 3000), 0);
    assert_eq!(
        timeout_option(udp.0, os::SO_SNDTIMEO),
        Duration::from_secs(3)
    );
    // -1500 ms splits into -1 s and -500000 us, which the kernel refuses.
    #[cfg(unix)]
    {
        assert_eq!(enet_socket_set_option(udp.0, RCVTIMEO, -1500), -1);
        assert_eq!(errno(), Some(libc::EDOM));
    }

    assert_eq!(enet_socket_set_option(udp.0, NODELAY, 1), -1);
    assert_eq!(enet_socket_set_option(tcp.0, NODELAY, 1), 0);
    assert_eq!(int_option(tcp.0, os::IPPROTO_TCP, os::TCP_NODELAY), 1);

    // Options stock does not set, including out-of-range values from C
    // (received as plain ints, never as Rust enums). 10 is 1.3.18's TTL.
    for option in [ERROR, 0, -1, 11, 99, c_int::MIN, c_int::MAX] {
        assert_eq!(
            enet_socket_set_option(udp.0, option, 1),
            -1,
            "option {option}"
        );
    }
}

#[test]
fn get_option_reads_only_the_socket_error() {
    let (udp, _) = udp();
    let mut value: c_int = 77;
    // SAFETY: `value` is a valid int.
    unsafe {
        assert_eq!(enet_socket_get_option(udp.0, ERROR, &mut value), 0);
        assert_eq!(value, 0);
        for option in [
            NONBLOCK, BROADCAST, RCVBUF, SNDBUF, REUSEADDR, RCVTIMEO, SNDTIMEO, NODELAY, 0, 11, -5,
        ] {
            value = 77;
            assert_eq!(
                enet_socket_get_option(udp.0, option, &mut value),
                -1,
                "option {option}"
            );
            assert_eq!(value, 77);
        }
        assert_eq!(enet_socket_get_option(NOT_OPEN, ERROR, &mut value), -1);
        assert_eq!(value, 77);
        assert_eq!(enet_socket_get_option(udp.0, ERROR, ptr::null_mut()), -1);
    }
}

#[test]
fn tcp_listen_connect_accept_on_loopback() {
    let listener = Socket(enet_socket_create(STREAM));
    // SAFETY: a valid address.
    assert_eq!(unsafe { enet_socket_bind(listener.0, &loopback(0)) }, 0);
    assert_eq!(enet_socket_listen(listener.0, -1), 0);
    let listen_address = address_of(listener.0);

    let client = Socket(enet_socket_create(STREAM));
    // SAFETY: a valid address.
    assert_eq!(unsafe { enet_socket_connect(client.0, &listen_address) }, 0);
    let client_address = address_of(client.0);

    let mut peer = ENetAddress::default();
    // SAFETY: `peer` is a valid ENetAddress.
    let accepted = Socket(unsafe { enet_socket_accept(listener.0, &mut peer) });
    assert_ne!(accepted.0, ENET_SOCKET_NULL);
    assert_eq!(peer, client_address);

    assert_eq!(
        send(
            client.0,
            None,
            &mut [&mut *b"hel".to_vec(), &mut *b"lo".to_vec()]
        ),
        5
    );
    let mut data = [0u8; 16];
    assert_eq!(enet_socket_set_option(accepted.0, RCVTIMEO, 2000), 0);
    assert_eq!(receive(accepted.0, None, &mut [&mut data]), 5);
    assert_eq!(&data[..5], b"hello");

    assert_eq!(enet_socket_shutdown(client.0, 7), -1, "out-of-range `how`");
    assert_eq!(enet_socket_shutdown(client.0, 1), 0);
    assert_eq!(
        receive(accepted.0, None, &mut [&mut data]),
        0,
        "end of stream"
    );

    // A second, non-blocking client: connect in progress counts as success.
    let second = Socket(enet_socket_create(STREAM));
    assert_eq!(enet_socket_set_option(second.0, NONBLOCK, 1), 0);
    // SAFETY: a valid address.
    assert_eq!(unsafe { enet_socket_connect(second.0, &listen_address) }, 0);
    assert_eq!(wait(second.0, WAIT_SEND, 2000), (0, WAIT_SEND));
    // SAFETY: NULL address means "don't report".
    let accepted_second = Socket(unsafe { enet_socket_accept(listener.0, ptr::null_mut()) });
    assert_ne!(accepted_second.0, ENET_SOCKET_NULL);

    // NULL address to connect: -1 instead of a crash.
    // SAFETY: NULL is rejected before use.
    assert_eq!(unsafe { enet_socket_connect(second.0, ptr::null()) }, -1);
}

#[test]
fn bind_get_address_and_create_edge_cases() {
    let socket = Socket(enet_socket_create(DATAGRAM));
    // SAFETY: NULL means any address, any port; NULL output is rejected.
    unsafe {
        assert_eq!(enet_socket_bind(socket.0, ptr::null()), 0);
        assert_eq!(enet_socket_get_address(socket.0, ptr::null_mut()), -1);
    }
    let bound = address_of(socket.0);
    assert_eq!(bound.host, 0);
    assert_ne!(bound.port, 0);

    let mut untouched = loopback(5);
    // SAFETY: a valid address.
    assert_eq!(
        unsafe { enet_socket_get_address(NOT_OPEN, &mut untouched) },
        -1
    );
    assert_eq!(errno(), Some(os::NOT_A_SOCKET));
    assert_eq!(untouched, loopback(5));

    // Any type other than DATAGRAM makes a stream socket, as in stock.
    for kind in [0, STREAM, 3, -1, c_int::MAX] {
        let created = Socket(enet_socket_create(kind));
        assert_eq!(
            int_option(created.0, os::SOL_SOCKET, os::SO_TYPE),
            os::SOCK_STREAM
        );
    }
    assert_eq!(
        int_option(socket.0, os::SOL_SOCKET, os::SO_TYPE),
        os::SOCK_DGRAM
    );
}

/// The inode behind a descriptor, or `None` if it is not open.
#[cfg(unix)]
fn inode(descriptor: c_int) -> Option<libc::ino_t> {
    // SAFETY: stat is plain old data; fstat only writes into it.
    unsafe {
        let mut status: libc::stat = core::mem::zeroed();
        (libc::fstat(descriptor, &mut status) == 0).then_some(status.st_ino)
    }
}

#[test]
#[cfg(unix)]
fn destroy_closes_and_ignores_null() {
    let socket = enet_socket_create(DATAGRAM);
    assert!(socket >= 0);
    let before = inode(socket).expect("open socket");
    enet_socket_destroy(socket);
    // Other tests may reuse the number at once; it must not be our socket.
    assert_ne!(inode(socket), Some(before));
    enet_socket_destroy(ENET_SOCKET_NULL);
    enet_socket_destroy(-5);
}

/// Windows: a closed socket's handle is no socket any more, and the
/// invalid socket is ignored.
#[test]
#[cfg(windows)]
fn destroy_closes_and_ignores_null() {
    let socket = enet_socket_create(DATAGRAM);
    assert_ne!(socket, ENET_SOCKET_NULL);
    let mut error = 0;
    // SAFETY: `error` is a valid int.
    assert_eq!(
        unsafe { enet_socket_get_option(socket, ERROR, &mut error) },
        0
    );
    enet_socket_destroy(socket);
    // SAFETY: `error` is a valid int.
    assert_eq!(
        unsafe { enet_socket_get_option(socket, ERROR, &mut error) },
        -1
    );
    assert_eq!(errno(), Some(os::NOT_A_SOCKET));
    enet_socket_destroy(ENET_SOCKET_NULL);
}

#[test]
#[cfg(unix)]
fn select_reports_readable_sockets() {
    let (receiver, receiver_address) = udp();
    let (sender, _) = udp();
    // SAFETY: fd_set is plain old data, manipulated with the libc macros
    // on descriptors below FD_SETSIZE.
    unsafe {
        let mut read_set: libc::fd_set = core::mem::zeroed();
        libc::FD_ZERO(&mut read_set);
        libc::FD_SET(receiver.0, &mut read_set);
        let max = receiver.0.max(sender.0);
        assert_eq!(
            enet_socketset_select(max, &mut read_set, ptr::null_mut(), 20),
            0
        );
        assert!(!libc::FD_ISSET(receiver.0, &read_set));

        assert_eq!(
            send(
                sender.0,
                Some(&receiver_address),
                &mut [&mut *b"x".to_vec()]
            ),
            1
        );
        libc::FD_ZERO(&mut read_set);
        libc::FD_SET(receiver.0, &mut read_set);
        libc::FD_SET(sender.0, &mut read_set);
        assert_eq!(
            enet_socketset_select(max, &mut read_set, ptr::null_mut(), 1000),
            1
        );
        assert!(libc::FD_ISSET(receiver.0, &read_set));
        assert!(!libc::FD_ISSET(sender.0, &read_set));

        // No sets: a plain sleep.
        assert_eq!(
            enet_socketset_select(-1, ptr::null_mut(), ptr::null_mut(), 5),
            0
        );
    }
}

/// Windows' `fd_set` is a count and an array, filled here by hand as the
/// `FD_SET` macro does.
#[test]
#[cfg(windows)]
fn select_reports_readable_sockets() {
    use enet::abi::ENetSocketSet;

    fn set_of(sockets: &[ENetSocket]) -> ENetSocketSet {
        let mut set = ENetSocketSet {
            fd_count: 0,
            fd_array: [0; 64],
        };
        for &socket in sockets {
            set.fd_array[set.fd_count as usize] = socket;
            set.fd_count += 1;
        }
        set
    }
    fn holds(set: &ENetSocketSet, socket: ENetSocket) -> bool {
        set.fd_array[..set.fd_count as usize].contains(&socket)
    }

    let (receiver, receiver_address) = udp();
    let (sender, _) = udp();
    let max = receiver.0.max(sender.0);
    let mut read_set = set_of(&[receiver.0]);
    // SAFETY: a valid set, exclusively borrowed.
    let ready = unsafe { enet_socketset_select(max, &mut read_set, ptr::null_mut(), 20) };
    assert_eq!(ready, 0);
    assert!(!holds(&read_set, receiver.0));

    assert_eq!(
        send(
            sender.0,
            Some(&receiver_address),
            &mut [&mut *b"x".to_vec()]
        ),
        1
    );
    let mut read_set = set_of(&[receiver.0, sender.0]);
    // SAFETY: a valid set, exclusively borrowed.
    let ready = unsafe { enet_socketset_select(max, &mut read_set, ptr::null_mut(), 1000) };
    assert_eq!(ready, 1);
    assert!(holds(&read_set, receiver.0));
    assert!(!holds(&read_set, sender.0));
}

/// ENet 1.3.18's `ENET_SOCKOPT_TTL`, set and read back: `IP_TTL` on a
/// stock (IPv4) socket, the hop limit on a dual-stack host's socket (whose
/// IPv4 peers get the TTL too where the system applies it).
#[test]
fn ttl_is_set_and_read_back_on_ipv4_and_ipv6_sockets() {
    let (udp, _) = udp();
    let mut value = 0;
    assert_eq!(enet_socket_set_option(udp.0, TTL, 17), 0);
    // SAFETY: `value` is a valid int.
    assert_eq!(unsafe { enet_socket_get_option(udp.0, TTL, &mut value) }, 0);
    assert_eq!(value, 17);
    assert_eq!(enet_socket_set_option(udp.0, TTL, 255), 0);
    // SAFETY: `value` is a valid int.
    assert_eq!(unsafe { enet_socket_get_option(udp.0, TTL, &mut value) }, 0);
    assert_eq!(value, 255);
    // Out of range for an IP header: the system refuses it.
    assert_eq!(enet_socket_set_option(udp.0, TTL, 256), -1);

    let (dual, _, _) = enet::net::host_socket::open(&enet::net::host_socket::HostSocketOptions {
        bind: Some("[::]:0".parse().unwrap()),
        ipv6_only: false,
        reuse_port: false,
    })
    .unwrap();
    let dual = Socket(dual);
    assert_eq!(enet_socket_set_option(dual.0, TTL, 9), 0);
    // SAFETY: `value` is a valid int.
    assert_eq!(
        unsafe { enet_socket_get_option(dual.0, TTL, &mut value) },
        0
    );
    assert_eq!(value, 9);
    // SAFETY: a NULL value is refused before use.
    assert_eq!(
        unsafe { enet_socket_get_option(dual.0, TTL, ptr::null_mut()) },
        -1
    );
}
