//! `enet/callbacks.h`: the allocator hooks a program may install.

use core::ffi::c_void;

/// Allocator hooks given to `enet_initialize_with_callbacks`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ENetCallbacks {
    pub malloc: Option<unsafe extern "C" fn(size: usize) -> *mut c_void>,
    pub free: Option<unsafe extern "C" fn(memory: *mut c_void)>,
    pub no_memory: Option<unsafe extern "C" fn()>,
}
