//! `enet/list.h`: the intrusive doubly-linked list node that public structs embed.

/// A node of an intrusive circular list; `next`/`previous` point at other nodes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ENetListNode {
    pub next: *mut ENetListNode,
    pub previous: *mut ENetListNode,
}

/// Iterator over list nodes: a pointer to the current node.
pub type ENetListIterator = *mut ENetListNode;

/// A list: a sentinel node whose `next` is the front and `previous` the back.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ENetList {
    pub sentinel: ENetListNode,
}

impl ENetListNode {
    /// A node that points nowhere (what zeroed C memory holds).
    pub const NULL: ENetListNode = ENetListNode {
        next: core::ptr::null_mut(),
        previous: core::ptr::null_mut(),
    };
}
