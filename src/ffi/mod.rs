#![allow(non_snake_case)] // parameter names follow the C headers

//! The `extern "C"` surface: one submodule per ENet noun.
//!
//! Every entry point is thin: it runs its body inside `guard!` so that no
//! panic unwinds into C, turns its pointer parameters into references
//! through the macros below, and forwards to safe Rust. The macros hold
//! the dereferences of C pointers, each with its argument, so entry points
//! need no `unsafe` of their own for them. The release profile also sets
//! `panic = "abort"` as a backstop.
//!
//! The contract every export shares: pointers are NULL or valid as its
//! `# Safety` section says; one thread at a time per host (its peers, and
//! the packets queued to it, included); and from inside a host's own
//! callbacks (intercept, checksum, compressor, a packet's free callback)
//! only `enet_peer_send`, `enet_host_broadcast`, `enet_peer_disconnect*`
//! and `enet_peer_reset` reach that host, queued until the callback
//! returns: every other call on it gets its failure value (`busy.rs`).

/// Runs an entry point's body and maps a panic to the function's failure
/// value, so no unwind ever crosses into C: the return type's
/// [`FailureValue`], or the value given first.
macro_rules! guard {
    ($body:expr) => {
        guard!($crate::ffi::FailureValue::failure(), $body)
    };
    ($failure:expr, $body:expr) => {
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| $body)) {
            Ok(value) => value,
            Err(_) => $failure,
        }
    };
}

/// Binds `$host` to the `DriverHost` behind an `ENetHost *` parameter for
/// the rest of the enclosing block (an entry point's `guard!` body), with
/// the host marked busy on this thread meanwhile (see `busy.rs`); the
/// calls its callbacks make are applied when the block ends. Returns the
/// failure value from the body for NULL and for a host this thread is
/// already inside of (a call from one of its callbacks): the value after
/// `else`, the result of `busy $name => ...`, or the return type's
/// [`FailureValue`].
macro_rules! try_host {
    (let $host:ident = $pointer:expr) => {
        try_host!(let $host = $pointer, else $crate::ffi::FailureValue::failure())
    };
    (let $host:ident = $pointer:expr, else $failure:expr) => {
        try_host!(let $host = $pointer, busy _busy => $failure, else $failure)
    };
    (let $host:ident = $pointer:expr, busy $busy:pat => $on_busy:expr) => {
        try_host!(let $host = $pointer, busy $busy => $on_busy,
            else $crate::ffi::FailureValue::failure())
    };
    (let $host:ident = $pointer:expr, busy $busy:pat => $on_busy:expr, else $failure:expr) => {
        let pointer: *mut $crate::abi::ENetHost = $pointer;
        if pointer.is_null() {
            return $failure;
        }
        // SAFETY: every export's contract: a non-NULL `ENetHost *` comes
        // from `enet_host_create` (or `enet_rs_host_create`) and is not
        // destroyed, so it is the address of a live host allocation with
        // the provenance of all of it (`CBox::into_raw`).
        let guard = unsafe { $crate::ffi::driver::guard_of(pointer) };
        let found = match guard.lookup() {
            $crate::ffi::busy::HostLookup::Idle => $crate::ffi::busy::Found::Idle,
            $crate::ffi::busy::HostLookup::Busy($busy) => return $on_busy,
            $crate::ffi::busy::HostLookup::Elsewhere => $crate::ffi::busy::Found::Elsewhere,
        };
        // SAFETY: as above; and no other reference to the host is live:
        // the library makes references to a host only here and in
        // `try_peer!`, for the length of one entry point, with the host
        // marked busy on its thread meanwhile (just below). No entry point
        // on this thread holds one (the host is not busy here), another
        // thread may not be inside it (the contract; a program that breaks
        // it gets stock's race), and the only code that runs while this
        // entry point does is the host's own callbacks, whose calls find
        // the host busy and never reach this line.
        let driver = unsafe { $crate::ffi::driver::endpoint_of(pointer) };
        let mut entered = $crate::ffi::busy::Entered::enter(
            guard,
            found,
            driver,
            $crate::ffi::host::apply_callback_calls,
        );
        let $host = entered.driver();
    };
}

/// Binds `$host` and `$index` to the host of an `ENetPeer *` parameter
/// and the peer's slot, as [`try_host!`] does for a host. Returns the
/// failure value from the body for NULL, a peer of no host's array, and a
/// peer of a host this thread is already inside of (a call from one of its
/// callbacks): the value after `else`, the result of
/// `busy ($busy, $slot) => ...`, or the return type's [`FailureValue`].
macro_rules! try_peer {
    (let ($host:ident, $index:ident) = $pointer:expr) => {
        try_peer!(let ($host, $index) = $pointer, else $crate::ffi::FailureValue::failure())
    };
    (let ($host:ident, $index:ident) = $pointer:expr, else $failure:expr) => {
        try_peer!(let ($host, $index) = $pointer, busy (_busy, _slot) => $failure,
            else $failure)
    };
    (let ($host:ident, $index:ident) = $pointer:expr,
        busy ($busy:pat, $slot:pat) => $on_busy:expr) => {
        try_peer!(let ($host, $index) = $pointer, busy ($busy, $slot) => $on_busy,
            else $crate::ffi::FailureValue::failure())
    };
    (let ($host:ident, $index:ident) = $pointer:expr,
        busy ($busy:pat, $slot:pat) => $on_busy:expr, else $failure:expr) => {
        try_peer!(@find ($host, $index, guard, driver) = $pointer,
            busy ($busy, $slot) => $on_busy, else $failure);
        let found = match guard.lookup() {
            $crate::ffi::busy::HostLookup::Elsewhere => $crate::ffi::busy::Found::Elsewhere,
            _ => $crate::ffi::busy::Found::Idle,
        };
        let mut entered = $crate::ffi::busy::Entered::enter(
            guard,
            found,
            driver,
            $crate::ffi::host::apply_callback_calls,
        );
        let $host = entered.driver();
    };
    // For an entry point whose work on the host runs none of the program's
    // callbacks (nor anything that frees a packet): the host is not marked
    // busy meanwhile, which saves the hot `enet_peer_send` the marking.
    (quick let ($host:ident, $index:ident) = $pointer:expr,
        busy ($busy:pat, $slot:pat) => $on_busy:expr) => {
        try_peer!(@find ($host, $index, guard, driver) = $pointer,
            busy ($busy, $slot) => $on_busy, else $crate::ffi::FailureValue::failure());
        let _ = guard;
        let $host = driver;
    };
    (@find ($host:ident, $index:ident, $guard:ident, $driver:ident) = $pointer:expr,
        busy ($busy:pat, $slot:pat) => $on_busy:expr, else $failure:expr) => {
        let peer: *mut $crate::abi::ENetPeer = $pointer;
        if peer.is_null() {
            return $failure;
        }
        match $crate::ffi::busy::find_peer(peer) {
            $crate::ffi::busy::PeerLookup::Readable => {}
            $crate::ffi::busy::PeerLookup::Busy($busy, $slot) => return $on_busy,
            $crate::ffi::busy::PeerLookup::Stray => return $failure,
        }
        // SAFETY: every export's contract: a non-NULL `ENetPeer *` is a
        // peer of a live host used by one thread at a time, so it points
        // into that host's peer array and can be read. Nothing on this
        // thread holds a reference into it: the engine makes references
        // into a host's peers only while an entry point is inside the
        // host, and the peer is in no array of a host this thread is
        // inside of (checked above).
        let owner = unsafe { (*peer).host };
        if owner.is_null() {
            return $failure;
        }
        // SAFETY: `peer->host` of a live peer is its live host.
        let $guard = unsafe { $crate::ffi::driver::guard_of(owner) };
        // SAFETY: the host is live and not busy on this thread (its peer
        // is in no such host's array, checked above); the argument of
        // `try_host!` holds from here. The `quick` form marks the host
        // busy for no callbacks: its entry point runs none while it holds
        // this.
        let $driver = unsafe { $crate::ffi::driver::endpoint_of(owner) };
        let Some($index) = $driver.peer_index(peer) else {
            return $failure;
        };
    };
}

/// The packet behind an `ENetPacket *` parameter, seen without taking a
/// reference ([`crate::mem::PacketView`]); returns the failure value from
/// the body for NULL (the value after `else`, or the return type's
/// [`FailureValue`]).
macro_rules! try_packet {
    ($pointer:expr) => {
        try_packet!($pointer, else $crate::ffi::FailureValue::failure())
    };
    ($pointer:expr, else $failure:expr) => {
        // SAFETY: every export's contract: a packet parameter is NULL or a
        // live packet from `enet_packet_create`, not being destroyed, used
        // by one thread at a time; a view reads and counts references
        // through the pointer only while the call lasts.
        match unsafe { $crate::mem::PacketView::from_raw($pointer) } {
            Some(view) => view,
            None => return $failure,
        }
    };
}

/// A shared reference to what a pointer parameter points at, or `None`
/// for NULL.
macro_rules! arg_ref {
    ($pointer:expr) => {
        // SAFETY: every export's contract: a pointer parameter is NULL or
        // points at a valid value of the type it is read as (for a handle
        // this library made, the type it made), which no one changes
        // during the call; the reference does not outlive the call.
        unsafe { $pointer.as_ref() }
    };
}

/// A mutable reference to what a pointer parameter points at, or `None`
/// for NULL.
macro_rules! arg_mut {
    ($pointer:expr) => {
        // SAFETY: every export's contract: an out-parameter (or a handle
        // this library made, such as a range coder's context) is NULL or
        // points at a valid, writable value of the type it is read as,
        // which no one else touches during the call; the reference does
        // not outlive the call.
        unsafe { $pointer.as_mut() }
    };
}

/// Takes back the box behind a handle parameter this library made with
/// `Box::into_raw` (a range coder's context, a sender), or `None` for
/// NULL: for the export that destroys it.
macro_rules! take_box {
    ($pointer:expr) => {{
        let pointer = $pointer;
        if pointer.is_null() {
            None
        } else {
            // SAFETY: every destroying export's contract: a non-NULL handle
            // came from `Box::into_raw` of the type it is cast to here (in
            // its create function), is given back once, and is not used
            // afterwards.
            Some(unsafe { Box::from_raw(pointer) })
        }
    }};
}

/// The `length` bytes a data pointer points at (none for NULL is the
/// caller's to handle): a `const void *` parameter, or the `data` of a
/// struct a parameter points at.
macro_rules! arg_bytes {
    ($pointer:expr, $length:expr) => {
        // SAFETY: every export's contract: a data pointer it is given (a
        // parameter, or a field of a struct a parameter points at) is
        // non-NULL here and readable for the length its `# Safety`
        // section gives, and unchanged during the call; the slice does not
        // outlive the call.
        unsafe { core::slice::from_raw_parts($pointer.cast::<u8>(), $length) }
    };
}

/// The `length` bytes a `uint8_t *` output parameter gives to write (none
/// for NULL is the caller's to handle), as bytes: for code that writes
/// each byte before it reads it.
macro_rules! arg_bytes_mut {
    ($pointer:expr, $length:expr) => {
        // SAFETY: every export's contract: an output buffer is non-NULL
        // here, writable for its length in bytes, and touched by no one
        // else during the call; the slice does not outlive the call. C
        // may not have written the bytes, but the code it goes to (the
        // range coder) only reads a byte it wrote.
        unsafe { core::slice::from_raw_parts_mut($pointer.cast::<u8>(), $length) }
    };
}

/// The text of a `const char *` parameter, or `None` for NULL.
macro_rules! arg_cstr {
    ($pointer:expr) => {{
        let pointer: *const core::ffi::c_char = $pointer;
        if pointer.is_null() {
            None
        } else {
            // SAFETY: every export's contract: a string parameter is NULL
            // or NUL-terminated and unchanged during the call; the text
            // does not outlive the call.
            Some(unsafe { core::ffi::CStr::from_ptr(pointer) })
        }
    }};
}

/// The UTF-8 text of a `const char *` parameter, or `None` for NULL or
/// text that is not UTF-8.
macro_rules! arg_str {
    ($pointer:expr) => {
        arg_cstr!($pointer).and_then(|text| text.to_str().ok())
    };
}

/// The `length` bytes a `char *` out-parameter gives to write, as
/// possibly uninitialised bytes.
macro_rules! arg_out_bytes {
    ($pointer:expr, $length:expr) => {
        // SAFETY: every export's contract: a buffer parameter is writable
        // for its length in bytes, and no one else touches it during the
        // call; the slice does not outlive the call.
        unsafe {
            core::slice::from_raw_parts_mut($pointer.cast::<core::mem::MaybeUninit<u8>>(), $length)
        }
    };
}

/// The `ENetBuffer` array of a `buffers, bufferCount` parameter pair, to
/// be read ([`args::Buffers`]), or `None` for NULL.
macro_rules! arg_buffers {
    ($pointer:expr, $count:expr) => {
        // SAFETY: every export's contract: a buffer array parameter is
        // NULL or holds its count of buffers, each of whose data is NULL
        // or readable for its length, all unchanged during the call; the
        // value does not outlive the call.
        unsafe { $crate::ffi::args::Buffers::from_raw($pointer, $count) }
    };
}

/// The `ENetBuffer` array of a `buffers, bufferCount` parameter pair, to
/// be written ([`args::BuffersMut`]), or `None` for NULL.
macro_rules! arg_buffers_mut {
    ($pointer:expr, $count:expr) => {
        // SAFETY: every export's contract: a buffer array parameter to
        // receive into is NULL or holds its count of buffers, each of
        // whose data is writable for its length and touched by no one
        // else during the call; the value does not outlive the call.
        unsafe { $crate::ffi::args::BuffersMut::from_raw($pointer, $count) }
    };
}

/// The node behind an `ENetListNode *` parameter ([`args::ListNode`]),
/// or `None` for NULL.
macro_rules! arg_list_node {
    ($pointer:expr) => {
        // SAFETY: every `enet_list_*` export's contract: a node parameter
        // is NULL or a writable node of a well-formed list (its links, and
        // theirs, lead to nodes of that list), which nothing else reads or
        // writes during the call ("one at a time per list").
        unsafe { $crate::ffi::args::ListNode::from_raw($pointer) }
    };
}

/// The sentinel node of an `ENetList *` parameter ([`args::ListNode`]),
/// or `None` for NULL.
macro_rules! arg_list {
    ($pointer:expr) => {
        // SAFETY: as in `arg_list_node!`, for the list's sentinel; the one
        // export given a list that may not be well-formed yet
        // (`enet_list_clear`) only writes its links.
        unsafe { $crate::ffi::args::ListNode::sentinel_of($pointer) }
    };
}

/// What an entry point returns when it cannot do what was asked (or a
/// panic stopped it): `-1` for a C `int` status, NULL for a pointer, 0 for
/// a count or a `u32` value, nothing for `void`.
pub(crate) trait FailureValue {
    fn failure() -> Self;
}

impl FailureValue for () {
    fn failure() -> Self {}
}

impl FailureValue for core::ffi::c_int {
    fn failure() -> Self {
        -1
    }
}

impl FailureValue for u32 {
    fn failure() -> Self {
        0
    }
}

impl FailureValue for usize {
    fn failure() -> Self {
        0
    }
}

impl<T> FailureValue for *mut T {
    fn failure() -> Self {
        core::ptr::null_mut()
    }
}

impl<T> FailureValue for *const T {
    fn failure() -> Self {
        core::ptr::null()
    }
}

impl FailureValue for crate::abi::ENetRsPeerHandle {
    fn failure() -> Self {
        Self::default()
    }
}

pub mod address;
mod args;
mod busy;
pub mod callbacks;
mod codec;
pub mod crc;
mod driver;
pub mod enet_rs;
pub mod enet_rs_dtls;
pub mod enet_rs_net;
pub mod enet_rs_netsim;
pub mod enet_rs_pmtu;
pub mod enet_rs_reasons;
pub mod enet_rs_send_limit;
pub mod enet_rs_stats;
pub mod enet_rs_timeouts;
pub mod enet_rs_wait;
pub mod host;
pub mod list;
pub mod packet;
pub mod peer;
pub mod protocol;
pub mod range_coder;
pub mod sender;
pub mod socket;
pub mod time;
mod versioned;
