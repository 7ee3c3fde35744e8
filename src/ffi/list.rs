//! `list.c`: ENet's intrusive circular list, exported for programs that use
//! it (and the `enet_list_*` macros of `list.h`). The engine itself keeps
//! its queues in Rust structures and only leaves these lists valid and empty
//! in the public structs.

use core::ffi::c_void;
use core::ptr;

use crate::abi::{ENetList, ENetListIterator, ENetListNode};

/// Makes `list` empty: its sentinel points at itself both ways.
///
/// # Safety
/// `list` must be NULL or point to a writable `ENetList`.
/// Any thread, one at a time per list; it touches no host, so a host's
/// callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_list_clear(list: *mut ENetList) {
    guard!((), {
        if list.is_null() {
            return;
        }
        // SAFETY: `list` is valid; taking the sentinel's address does not read.
        unsafe {
            let sentinel = ptr::addr_of_mut!((*list).sentinel);
            (*sentinel).next = sentinel;
            (*sentinel).previous = sentinel;
        }
    })
}

/// Links node `data` in just before `position`; returns the node.
///
/// # Safety
/// `position` must be a node of a well-formed list and `data` a writable,
/// unlinked `ENetListNode` (or either NULL, which does nothing).
/// Any thread, one at a time per list; it touches no host, so a host's
/// callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_list_insert(
    position: ENetListIterator,
    data: *mut c_void,
) -> ENetListIterator {
    guard!(ptr::null_mut(), {
        let node = data.cast::<ENetListNode>();
        if position.is_null() || node.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: both nodes are valid and `position`'s neighbours are valid
        // nodes of the same list.
        unsafe {
            (*node).previous = (*position).previous;
            (*node).next = position;
            (*(*node).previous).next = node;
            (*position).previous = node;
        }
        node
    })
}

/// Unlinks `position` from its list and returns it (its own links are left
/// as they were, as ENet does).
///
/// # Safety
/// `position` must be NULL or a linked node of a well-formed list.
/// Any thread, one at a time per list; it touches no host, so a host's
/// callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_list_remove(position: ENetListIterator) -> *mut c_void {
    guard!(ptr::null_mut(), {
        if position.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: the node and its neighbours are valid nodes of one list.
        unsafe {
            (*(*position).previous).next = (*position).next;
            (*(*position).next).previous = (*position).previous;
        }
        position.cast()
    })
}

/// Moves the run of nodes `first..=last` to just before `position`;
/// returns `first`.
///
/// # Safety
/// `first..=last` must be a run of linked nodes of a well-formed list and
/// `position` a node outside that run (any NULL does nothing).
/// Any thread, one at a time per list; it touches no host, so a host's
/// callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_list_move(
    position: ENetListIterator,
    dataFirst: *mut c_void,
    dataLast: *mut c_void,
) -> ENetListIterator {
    guard!(ptr::null_mut(), {
        let first = dataFirst.cast::<ENetListNode>();
        let last = dataLast.cast::<ENetListNode>();
        if position.is_null() || first.is_null() || last.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: all nodes are valid per the caller contract; the run is first
        // cut out of its list, then spliced in before `position`.
        unsafe {
            (*(*first).previous).next = (*last).next;
            (*(*last).next).previous = (*first).previous;

            (*first).previous = (*position).previous;
            (*last).next = position;

            (*(*first).previous).next = first;
            (*position).previous = last;
        }
        first
    })
}

/// Counts the nodes of `list` (0 for NULL).
///
/// # Safety
/// `list` must be NULL or a well-formed (cleared or populated) list.
/// Any thread, one at a time per list; it touches no host, so a host's
/// callbacks may call it.
#[no_mangle]
pub unsafe extern "C" fn enet_list_size(list: *mut ENetList) -> usize {
    guard!(0, {
        if list.is_null() {
            return 0;
        }
        // SAFETY: `list` is valid; the walk follows `next` links of a
        // well-formed circular list back to its sentinel.
        unsafe {
            let sentinel = ptr::addr_of_mut!((*list).sentinel);
            let mut count = 0;
            let mut node = (*sentinel).next;
            while node != sentinel && !node.is_null() {
                count += 1;
                node = (*node).next;
            }
            count
        }
    })
}
