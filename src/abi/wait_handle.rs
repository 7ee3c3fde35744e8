//! The C type of a host's wait handle, which differs by system: a file
//! descriptor on Unix, an event `HANDLE` on Windows. `enet/enet_rs.h`
//! declares it by hand (`cbindgen.toml`), as the generator writes one
//! header for every system.

/// A host's wait handle (`enet_rs_host_get_wait_handle`): a file
/// descriptor on Unix.
#[cfg(unix)]
pub type ENetRsWaitHandle = core::ffi::c_int;
/// A host's wait handle (`enet_rs_host_get_wait_handle`): an event
/// `HANDLE` on Windows.
#[cfg(windows)]
pub type ENetRsWaitHandle = *mut core::ffi::c_void;

/// `enet_rs_host_get_wait_handle`'s failure on Unix: -1.
#[cfg(unix)]
pub const ENET_RS_NO_WAIT_HANDLE: ENetRsWaitHandle = -1;
/// `enet_rs_host_get_wait_handle`'s failure on Windows: NULL.
#[cfg(windows)]
pub const ENET_RS_NO_WAIT_HANDLE: ENetRsWaitHandle = core::ptr::null_mut();
