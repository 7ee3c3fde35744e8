//! `enet_socket_*` and `enet_socketset_select` (filled in by the socket work).

use core::ffi::c_int;

use crate::abi::{
    ENetAddress, ENetBuffer, ENetSocket, ENetSocketOption, ENetSocketSet, ENetSocketShutdown,
    ENetSocketType, ENET_SOCKET_NULL,
};

#[no_mangle]
pub extern "C" fn enet_socket_create(_type: ENetSocketType) -> ENetSocket {
    ENET_SOCKET_NULL
}

/// # Safety
/// `address` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_bind(
    _socket: ENetSocket,
    _address: *const ENetAddress,
) -> c_int {
    -1
}

/// # Safety
/// `address` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_get_address(
    _socket: ENetSocket,
    _address: *mut ENetAddress,
) -> c_int {
    -1
}

#[no_mangle]
pub extern "C" fn enet_socket_listen(_socket: ENetSocket, _backlog: c_int) -> c_int {
    -1
}

/// # Safety
/// `address` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_accept(
    _socket: ENetSocket,
    _address: *mut ENetAddress,
) -> ENetSocket {
    ENET_SOCKET_NULL
}

/// # Safety
/// `address` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_connect(
    _socket: ENetSocket,
    _address: *const ENetAddress,
) -> c_int {
    -1
}

/// # Safety
/// Pointers must be valid.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_send(
    _socket: ENetSocket,
    _address: *const ENetAddress,
    _buffers: *const ENetBuffer,
    _bufferCount: usize,
) -> c_int {
    -1
}

/// # Safety
/// Pointers must be valid.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_receive(
    _socket: ENetSocket,
    _address: *mut ENetAddress,
    _buffers: *mut ENetBuffer,
    _bufferCount: usize,
) -> c_int {
    -1
}

/// # Safety
/// `condition` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_wait(
    _socket: ENetSocket,
    _condition: *mut u32,
    _timeout: u32,
) -> c_int {
    -1
}

#[no_mangle]
pub extern "C" fn enet_socket_set_option(
    _socket: ENetSocket,
    _option: ENetSocketOption,
    _value: c_int,
) -> c_int {
    -1
}

/// # Safety
/// `value` must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_socket_get_option(
    _socket: ENetSocket,
    _option: ENetSocketOption,
    _value: *mut c_int,
) -> c_int {
    -1
}

#[no_mangle]
pub extern "C" fn enet_socket_shutdown(_socket: ENetSocket, _how: ENetSocketShutdown) -> c_int {
    -1
}

#[no_mangle]
pub extern "C" fn enet_socket_destroy(_socket: ENetSocket) {}

/// # Safety
/// Sets must be NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn enet_socketset_select(
    _maxSocket: ENetSocket,
    _readSet: *mut ENetSocketSet,
    _writeSet: *mut ENetSocketSet,
    _timeout: u32,
) -> c_int {
    -1
}
