//! Shapes of C pointer parameters that recur across entry points, as
//! types with one `unsafe` constructor each: an `ENetBuffer` array
//! ([`Buffers`], [`BuffersMut`]) and a node of a C list ([`ListNode`]).
//! The `arg_*!` macros in `ffi/mod.rs` call the constructors, so an entry
//! point gets a value it can use without `unsafe`.

use core::marker::PhantomData;
use core::ptr::{self, NonNull};
use std::io;

use crate::abi::{ENetAddress, ENetBuffer, ENetList, ENetListNode, ENetSocket};
use crate::net::socket::{self, Received};

/// `count` buffers C handed in to be read: each buffer's `data` is NULL
/// or readable for its `dataLength` bytes, and unchanged, while `'a`
/// lasts.
#[derive(Clone, Copy)]
pub(super) struct Buffers<'a> {
    /// NULL only when `count` is 0 (see [`Buffers::none`]).
    pointer: *const ENetBuffer,
    count: usize,
    _buffers: PhantomData<&'a [ENetBuffer]>,
}

impl<'a> Buffers<'a> {
    /// The buffers at `pointer`, or `None` for NULL.
    ///
    /// # Safety
    /// `pointer` must be NULL or point at `count` `ENetBuffer`s, readable
    /// and unchanged for `'a`; each buffer's `data` must be NULL or
    /// readable for `dataLength` bytes, and those bytes unchanged, for
    /// `'a`.
    pub(super) unsafe fn from_raw(pointer: *const ENetBuffer, count: usize) -> Option<Self> {
        (!pointer.is_null()).then_some(Buffers {
            pointer,
            count,
            _buffers: PhantomData,
        })
    }

    /// No buffers, passed on as a NULL array (as a C caller may pass them).
    pub(super) fn none() -> Self {
        Buffers {
            pointer: ptr::null(),
            count: 0,
            _buffers: PhantomData,
        }
    }

    /// The buffers themselves.
    pub(super) fn as_slice(&self) -> &'a [ENetBuffer] {
        if self.count == 0 {
            return &[];
        }
        // SAFETY: non-NULL with `count` readable buffers for `'a`
        // (`from_raw`'s contract; only `none` makes a NULL, with no count).
        unsafe { core::slice::from_raw_parts(self.pointer, self.count) }
    }

    /// Each buffer's bytes, in order; a NULL `data` gives no bytes.
    pub(super) fn bytes(&self) -> impl Iterator<Item = &'a [u8]> {
        self.as_slice().iter().map(|buffer| {
            if buffer.data.is_null() || buffer.dataLength == 0 {
                return &[][..];
            }
            // SAFETY: non-NULL `data` is readable for `dataLength` bytes,
            // unchanged for `'a` (`from_raw`'s contract).
            unsafe { core::slice::from_raw_parts(buffer.data.cast::<u8>(), buffer.dataLength) }
        })
    }

    /// Sends the buffers as one datagram (to `address` if given), as
    /// [`socket::send`].
    pub(super) fn send(&self, to: ENetSocket, address: Option<&ENetAddress>) -> io::Result<usize> {
        // SAFETY: `pointer` holds `count` buffers (or is NULL with no
        // count), each readable for its length (`from_raw`'s contract);
        // the system reads only those bytes, and reports a NULL `data`
        // as a fault instead of reading it.
        unsafe { socket::send(to, address, self.pointer, self.count) }
    }
}

/// `count` buffers C handed in to be written: each buffer's `data` is
/// writable for its `dataLength` bytes, which nothing else touches, while
/// `'a` lasts.
pub(super) struct BuffersMut<'a> {
    /// NULL only when `count` is 0 (see [`BuffersMut::none`]).
    pointer: *mut ENetBuffer,
    count: usize,
    _buffers: PhantomData<&'a mut [ENetBuffer]>,
}

impl<'a> BuffersMut<'a> {
    /// The buffers at `pointer`, or `None` for NULL.
    ///
    /// # Safety
    /// `pointer` must be NULL or point at `count` `ENetBuffer`s, readable
    /// and unchanged for `'a`; each buffer's `data` must be writable for
    /// `dataLength` bytes that nothing else reads or writes during `'a`.
    pub(super) unsafe fn from_raw(pointer: *mut ENetBuffer, count: usize) -> Option<Self> {
        (!pointer.is_null()).then_some(BuffersMut {
            pointer,
            count,
            _buffers: PhantomData,
        })
    }

    /// No buffers, passed on as a NULL array (as a C caller may pass them).
    pub(super) fn none() -> Self {
        BuffersMut {
            pointer: ptr::null_mut(),
            count: 0,
            _buffers: PhantomData,
        }
    }

    /// Receives one datagram into the buffers, as [`socket::receive`].
    pub(super) fn receive(&mut self, from: ENetSocket, want_address: bool) -> io::Result<Received> {
        // SAFETY: `pointer` holds `count` buffers (or is NULL with no
        // count), each writable for its length and touched by nothing
        // else (`from_raw`'s contract, and `&mut self`).
        unsafe { socket::receive(from, want_address, self.pointer, self.count) }
    }
}

/// A node of a C list (`ENetListNode *`), reached from an entry point's
/// parameter. Its links are read and written one field at a time through
/// the pointer; no Rust reference to a node is ever made, since the
/// nodes of a list point at each other (and a node may be its own
/// neighbour).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct ListNode(NonNull<ENetListNode>);

impl ListNode {
    /// The node at `node`, or `None` for NULL.
    ///
    /// # Safety
    /// `node` must be NULL or point at a writable `ENetListNode` that no
    /// one else reads or writes, and no Rust reference covers, while this
    /// value (or one it gives) is used. Each link read through it, or
    /// through a `ListNode` it gives, must be NULL or such a node too:
    /// true of the nodes of a well-formed list; the links of a list not
    /// yet cleared must be written before they are read.
    pub(super) unsafe fn from_raw(node: *mut ENetListNode) -> Option<Self> {
        NonNull::new(node).map(ListNode)
    }

    /// The sentinel node of the list at `list`, or `None` for NULL.
    ///
    /// # Safety
    /// As for [`ListNode::from_raw`], with `list`'s sentinel as the node.
    pub(super) unsafe fn sentinel_of(list: *mut ENetList) -> Option<Self> {
        if list.is_null() {
            return None;
        }
        // SAFETY: `list` points at an `ENetList` (the contract); taking
        // the address of its field reads nothing.
        let sentinel = unsafe { ptr::addr_of_mut!((*list).sentinel) };
        // SAFETY: the contract, for the sentinel.
        unsafe { Self::from_raw(sentinel) }
    }

    pub(super) fn as_ptr(self) -> *mut ENetListNode {
        self.0.as_ptr()
    }

    /// The node after this one, or `None` for a NULL link.
    pub(super) fn next(self) -> Option<ListNode> {
        // SAFETY: a live node no one else touches (`from_raw`'s contract);
        // one field is read. The link is NULL or such a node (likewise).
        unsafe { Self::from_raw((*self.as_ptr()).next) }
    }

    /// The node before this one, or `None` for a NULL link.
    pub(super) fn previous(self) -> Option<ListNode> {
        // SAFETY: as in `next`.
        unsafe { Self::from_raw((*self.as_ptr()).previous) }
    }

    pub(super) fn set_next(self, next: ListNode) {
        // SAFETY: a writable node no one else touches (`from_raw`'s
        // contract); one field is written, with a node of the same kind.
        unsafe { (*self.as_ptr()).next = next.as_ptr() };
    }

    pub(super) fn set_previous(self, previous: ListNode) {
        // SAFETY: as in `set_next`.
        unsafe { (*self.as_ptr()).previous = previous.as_ptr() };
    }
}
