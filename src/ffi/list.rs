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
        // Written, never read: the list may hold anything before this.
        let Some(sentinel) = arg_list!(list) else {
            return;
        };
        sentinel.set_next(sentinel);
        sentinel.set_previous(sentinel);
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
        let (Some(position), Some(node)) = (
            arg_list_node!(position),
            arg_list_node!(data.cast::<ENetListNode>()),
        ) else {
            return ptr::null_mut();
        };
        // A node of a well-formed list has a non-NULL link.
        let Some(previous) = position.previous() else {
            return ptr::null_mut();
        };
        node.set_previous(previous);
        node.set_next(position);
        previous.set_next(node);
        position.set_previous(node);
        node.as_ptr()
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
        let Some(node) = arg_list_node!(position) else {
            return ptr::null_mut();
        };
        // A linked node of a well-formed list has non-NULL links.
        let (Some(previous), Some(next)) = (node.previous(), node.next()) else {
            return ptr::null_mut();
        };
        previous.set_next(next);
        next.set_previous(previous);
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
        let (Some(position), Some(first), Some(last)) = (
            arg_list_node!(position),
            arg_list_node!(dataFirst.cast::<ENetListNode>()),
            arg_list_node!(dataLast.cast::<ENetListNode>()),
        ) else {
            return ptr::null_mut();
        };
        // Linked nodes of a well-formed list have non-NULL links.
        let (Some(before), Some(after)) = (first.previous(), last.next()) else {
            return ptr::null_mut();
        };
        // Cut the run out of its list...
        before.set_next(after);
        after.set_previous(before);
        // ...then splice it in before `position`, whose link is read only
        // now: the cut changes it when `position` followed the run.
        let Some(previous) = position.previous() else {
            return ptr::null_mut();
        };
        first.set_previous(previous);
        last.set_next(position);
        previous.set_next(first);
        position.set_previous(last);
        first.as_ptr()
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
        let Some(sentinel) = arg_list!(list) else {
            return 0;
        };
        // The walk follows `next` links of a circular list back to its
        // sentinel (stopping at a NULL link, as in zeroed memory).
        let mut count = 0;
        let mut node = sentinel.next();
        while let Some(current) = node.filter(|&current| current != sentinel) {
            count += 1;
            node = current.next();
        }
        count
    })
}
