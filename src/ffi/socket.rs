//! `enet_socket_*` and `enet_socketset_select`: stock `unix.c` semantics
//! over [`crate::net::socket`].
//!
//! Return codes are stock's: 0 on success and -1 on failure with `errno`
//! set by the failing system call; `send`/`receive` return a byte count,
//! 0 when the socket would block, -1 on error. NULL pointers that stock
//! would dereference return -1 (or `ENET_SOCKET_NULL`) instead.
//!
//! Enum-typed C parameters (`ENetSocketType`, `ENetSocketOption`,
//! `ENetSocketShutdown`) are received as `c_int`, which is their C ABI:
//! a C caller may pass any `int`, and an out-of-range value must not
//! become an invalid Rust enum.

use core::ffi::c_int;
use std::io::{self, ErrorKind};

use super::args::{Buffers, BuffersMut};
use crate::abi::{
    ENetAddress, ENetBuffer, ENetSocket, ENetSocketOptionValue, ENetSocketSet,
    ENetSocketShutdownValue, ENetSocketTypeValue, ENET_SOCKET_NULL,
};
use crate::net::socket::{self, Received};

/// ENet's "0 or -1" convention.
fn status(result: io::Result<()>) -> c_int {
    match result {
        Ok(()) => 0,
        Err(_) => -1,
    }
}

/// ENet's transfer convention: the byte count, 0 if the socket would
/// block, -1 on any other error.
fn transferred(result: io::Result<usize>) -> c_int {
    match result {
        // The kernel's ssize_t result, narrowed to C's int as stock does.
        Ok(length) => length as c_int,
        Err(error) if error.kind() == ErrorKind::WouldBlock => 0,
        Err(_) => -1,
    }
}

/// Creates an IPv4 socket: UDP for `ENET_SOCKET_TYPE_DATAGRAM` (2), TCP
/// for any other value. Returns `ENET_SOCKET_NULL` on failure.
#[no_mangle]
pub extern "C" fn enet_socket_create(type_: ENetSocketTypeValue) -> ENetSocket {
    guard!(ENET_SOCKET_NULL, {
        socket::create(type_).unwrap_or(ENET_SOCKET_NULL)
    })
}

/// Binds the socket to `address`, or to any interface and port when NULL.
///
/// # Safety
/// `address` must be NULL or point to a valid `ENetAddress`.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_bind(
    socket: ENetSocket,
    address: *const ENetAddress,
) -> c_int {
    guard!(-1, status(socket::bind(socket, arg_ref!(address))))
}

/// Writes the socket's bound address into `address`.
///
/// # Safety
/// `address` must be NULL or point to a writable `ENetAddress`.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_get_address(
    socket: ENetSocket,
    address: *mut ENetAddress,
) -> c_int {
    guard!(-1, {
        let Some(address) = arg_mut!(address) else {
            return -1;
        };
        match socket::local_address(socket) {
            Ok(bound) => {
                *address = bound;
                0
            }
            Err(_) => -1,
        }
    })
}

/// Listens for connections; a negative `backlog` means `SOMAXCONN`.
#[no_mangle]
pub extern "C" fn enet_socket_listen(socket: ENetSocket, backlog: c_int) -> c_int {
    guard!(-1, status(socket::listen(socket, backlog)))
}

/// Accepts a connection; writes the peer's address if `address` is not
/// NULL. Returns the new socket or `ENET_SOCKET_NULL`.
///
/// # Safety
/// `address` must be NULL or point to a writable `ENetAddress`.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_accept(
    socket: ENetSocket,
    address: *mut ENetAddress,
) -> ENetSocket {
    guard!(ENET_SOCKET_NULL, {
        let address = arg_mut!(address);
        match socket::accept(socket, address.is_some()) {
            Ok((accepted, peer)) => {
                if let (Some(address), Some(peer)) = (address, peer) {
                    *address = peer;
                }
                accepted
            }
            Err(_) => ENET_SOCKET_NULL,
        }
    })
}

/// Connects to `address`; a non-blocking connect in progress is success.
///
/// # Safety
/// `address` must be NULL (returns -1) or point to a valid `ENetAddress`.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_connect(
    socket: ENetSocket,
    address: *const ENetAddress,
) -> c_int {
    guard!(-1, {
        let Some(address) = arg_ref!(address) else {
            return -1;
        };
        status(socket::connect(socket, address))
    })
}

/// Sends the buffers as one datagram (to `address` unless NULL). Returns
/// the bytes sent, 0 if the socket would block, -1 on error.
///
/// # Safety
/// `buffers` must point to `bufferCount` buffers (it may be NULL when
/// `bufferCount` is 0); each buffer's data must be readable for its length.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_send(
    socket: ENetSocket,
    address: *const ENetAddress,
    buffers: *const ENetBuffer,
    bufferCount: usize,
) -> c_int {
    guard!(-1, {
        let buffers = match arg_buffers!(buffers, bufferCount) {
            Some(buffers) => buffers,
            None if bufferCount == 0 => Buffers::none(),
            None => return -1,
        };
        transferred(buffers.send(socket, arg_ref!(address)))
    })
}

/// Receives one datagram into the buffers, writing the sender into
/// `address` unless it is NULL. Returns the bytes received, 0 if nothing
/// is waiting (or a stream was closed), -1 on error.
///
/// **Deliberate difference from stock 1.3.17:** a datagram longer than the
/// buffers returns **-2** (stock 1.3.17 returns -1, which makes
/// `enet_host_service` fail). -2 is what ENet 1.3.18 and later return, so
/// that a host can drop one oversized datagram and carry on; `address` is
/// not written in that case.
///
/// # Safety
/// `buffers` must point to `bufferCount` buffers (it may be NULL when
/// `bufferCount` is 0); each buffer's data must be writable for its length.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_receive(
    socket: ENetSocket,
    address: *mut ENetAddress,
    buffers: *mut ENetBuffer,
    bufferCount: usize,
) -> c_int {
    guard!(-1, {
        let mut buffers = match arg_buffers_mut!(buffers, bufferCount) {
            Some(buffers) => buffers,
            None if bufferCount == 0 => BuffersMut::none(),
            None => return -1,
        };
        let address = arg_mut!(address);
        match buffers.receive(socket, address.is_some()) {
            Ok(Received::Data { length, from }) => {
                if let (Some(address), Some(from)) = (address, from) {
                    *address = from;
                }
                length as c_int
            }
            Ok(Received::Truncated) => -2,
            Err(error) => transferred(Err(error)),
        }
    })
}

/// Waits up to `timeout` ms for the conditions in `*condition`
/// (`ENET_SOCKET_WAIT_SEND`/`_RECEIVE`) and replaces it with those that
/// hold. Returns 0, or -1 on error; an interrupting signal gives 0 and
/// `ENET_SOCKET_WAIT_INTERRUPT` if that flag was asked for, else -1.
///
/// # Safety
/// `condition` must be NULL (returns -1) or point to a writable `u32`.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_wait(
    socket: ENetSocket,
    condition: *mut u32,
    timeout: u32,
) -> c_int {
    guard!(-1, {
        let Some(condition) = arg_mut!(condition) else {
            return -1;
        };
        match socket::wait(socket, *condition, timeout) {
            Ok(ready) => {
                *condition = ready;
                0
            }
            Err(_) => -1,
        }
    })
}

/// Sets an `ENET_SOCKOPT_*` option; -1 on failure or for options stock
/// 1.3.17 does not set (`ENET_SOCKOPT_ERROR`, unknown values).
#[no_mangle]
pub extern "C" fn enet_socket_set_option(
    socket: ENetSocket,
    option: ENetSocketOptionValue,
    value: c_int,
) -> c_int {
    guard!(-1, status(socket::set_option(socket, option, value)))
}

/// Reads an `ENET_SOCKOPT_*` option into `*value`; stock 1.3.17 supports
/// only `ENET_SOCKOPT_ERROR`, every other option returns -1.
///
/// # Safety
/// `value` must be NULL (returns -1) or point to a writable `int`.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_get_option(
    socket: ENetSocket,
    option: ENetSocketOptionValue,
    value: *mut c_int,
) -> c_int {
    guard!(-1, {
        let Some(value) = arg_mut!(value) else {
            return -1;
        };
        match socket::get_option(socket, option) {
            Ok(read) => {
                *value = read;
                0
            }
            Err(_) => -1,
        }
    })
}

/// Shuts down reading (0), writing (1) or both (2); other values fail.
#[no_mangle]
pub extern "C" fn enet_socket_shutdown(socket: ENetSocket, how: ENetSocketShutdownValue) -> c_int {
    guard!(-1, status(socket::shutdown(socket, how)))
}

/// Closes the socket; `ENET_SOCKET_NULL` is ignored.
#[no_mangle]
pub extern "C" fn enet_socket_destroy(socket: ENetSocket) {
    guard!((), socket::destroy(socket))
}

/// `select` on the sets for up to `timeout` ms: the number of ready
/// sockets, 0 on timeout, -1 on error. NULL sets are allowed.
///
/// # Safety
/// Each set must be NULL or a valid `ENetSocketSet`, and `maxSocket` below
/// `FD_SETSIZE` when a set is given.
/// Any thread; it touches no host, so a host's callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_socketset_select(
    maxSocket: ENetSocket,
    readSet: *mut ENetSocketSet,
    writeSet: *mut ENetSocketSet,
    timeout: u32,
) -> c_int {
    guard!(-1, {
        // SAFETY: this function's contract: each set is NULL or a valid
        // `fd_set` no one else touches during the call, and `maxSocket` is
        // below `FD_SETSIZE` when a set is given, so the system reads and
        // writes only inside the sets. (Not one of the `arg_*!` shapes:
        // the bound on `maxSocket` belongs to the sets.)
        match unsafe { socket::select(maxSocket, readSet, writeSet, timeout) } {
            Ok(ready) => ready as c_int,
            Err(_) => -1,
        }
    })
}
