//! The peers' channel arrays (`peer->channels`), kept together.
//!
//! Each connection gets an array of `ENetChannel`s for its life. Stock
//! allocates it with `malloc` at the connect and frees it at the reset, as
//! this library did. In the C heap those 80-byte arrays lie among what
//! each handshake allocates and frees again (a peer's command queues,
//! hundreds of bytes): after a burst of thousands of connects nearly every
//! heap page keeps a live array between the holes, so the heap can give
//! none of them back, and a server stays at the RSS of the burst's peak.
//!
//! So with the default allocator the arrays come from chunks of their own
//! (`CHUNK_CHANNELS` channels each, allocated as needed and kept until
//! `enet_deinitialize` finds none in use), and an array given back waits,
//! by length, for the next connection that asks for as many channels. The
//! chunks hold nothing but channel arrays, and the heap pages around them
//! empty once the queues go. Everything else is as before: the array is
//! made anew at each connect, its address does not move while the peer is
//! connected, and it is taken back at the reset.
//!
//! Recycling is on where the packet pool is ([`super::pool::recycles`]):
//! with the default allocator, and outside memory checkers, so that a
//! program's own allocator still sees one `malloc` and one `free` per
//! connection, and a checker still sees a use of `peer->channels` after
//! the reset. Elsewhere each array is allocated through the hooks.

use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};
use core::ptr::NonNull;
use std::sync::Mutex;

use super::{hooks, pool, CSlice};
use crate::abi::ENetChannel;

/// Channels in each chunk: 20 KiB, a few hundred typical connections.
const CHUNK_CHANNELS: usize = 256;

/// A peer's channels: from the recycled chunks, or allocated through the
/// hooks on their own (then freed when this is dropped).
pub struct ChannelArray {
    pointer: NonNull<ENetChannel>,
    len: u32,
    recycled: bool,
    owns: PhantomData<ENetChannel>,
}

// SAFETY: the array is owned as a `CSlice` is (nothing else refers to it
// through Rust), and `ENetChannel`s are plain data; recycled memory goes
// back through a lock, and its chunk stays while the array is in use.
unsafe impl Send for ChannelArray {}

impl ChannelArray {
    /// `len` channels, each made by `make()`; `None` when allocation
    /// fails or `len` is 0 or above what a peer can have.
    pub fn new(len: usize, make: impl FnMut() -> ENetChannel) -> Option<ChannelArray> {
        Self::made(len, make, pool::recycles())
    }

    /// [`ChannelArray::new`], from the recycled chunks if `recycled`.
    fn made(
        len: usize,
        mut make: impl FnMut() -> ENetChannel,
        recycled: bool,
    ) -> Option<ChannelArray> {
        let count = u32::try_from(len).ok().filter(|&count| count > 0)?;
        if recycled {
            let pointer = RECYCLED.lock().ok()?.take(len)?;
            let mut array = ChannelArray {
                pointer,
                len: count,
                recycled: true,
                owns: PhantomData,
            };
            array.fill(make);
            return Some(array);
        }
        let allocated = CSlice::new_with(len, |_| make())?;
        let pointer = NonNull::new(allocated.as_ptr().cast_mut())?;
        // The array now owns the allocation: it frees it on drop.
        core::mem::forget(allocated);
        Some(ChannelArray {
            pointer,
            len: count,
            recycled: false,
            owns: PhantomData,
        })
    }

    /// Overwrites every channel (plain data: nothing to drop).
    fn fill(&mut self, mut make: impl FnMut() -> ENetChannel) {
        let start = self.pointer.as_ptr();
        for index in 0..self.len as usize {
            // SAFETY: `index < len`, inside the array, which this owns; a
            // write neither reads nor drops what was there.
            unsafe { start.add(index).write(make()) };
        }
    }

    pub fn as_mut_ptr(&mut self) -> *mut ENetChannel {
        self.pointer.as_ptr()
    }

    /// Whether the array came from the recycled chunks.
    #[cfg(test)]
    fn is_recycled(&self) -> bool {
        self.recycled
    }
}

impl Deref for ChannelArray {
    type Target = [ENetChannel];
    fn deref(&self) -> &[ENetChannel] {
        // SAFETY: `len` initialised channels live at `pointer`, in memory
        // this owns until it is dropped (a chunk is freed only with no
        // array of it in use).
        unsafe { core::slice::from_raw_parts(self.pointer.as_ptr(), self.len as usize) }
    }
}

impl DerefMut for ChannelArray {
    fn deref_mut(&mut self) -> &mut [ENetChannel] {
        // SAFETY: as above, and `&mut self` makes the access unique.
        unsafe { core::slice::from_raw_parts_mut(self.pointer.as_ptr(), self.len as usize) }
    }
}

impl Drop for ChannelArray {
    fn drop(&mut self) {
        if self.recycled {
            // A poisoned lock (a panic while it was held, which nothing
            // inside can cause) leaves the array unused, never freed.
            if let Ok(mut recycled) = RECYCLED.lock() {
                recycled.give_back(self.pointer, self.len as usize);
            }
            return;
        }
        // SAFETY: the memory came from the hooks' malloc (a `CSlice`'s) and
        // is freed once; `ENetChannel` has nothing to drop.
        unsafe { hooks::free(self.pointer.as_ptr().cast()) };
    }
}

/// The recycled arrays of the process.
static RECYCLED: Mutex<Chunks> = Mutex::new(Chunks::new());

/// Gives every chunk back to `free` if no array is in use (no host has a
/// connected peer): `enet_deinitialize` calls it, as it empties the packet
/// pool, so a program that shuts ENet down leaves nothing allocated.
pub fn trim() {
    if let Ok(mut recycled) = RECYCLED.lock() {
        recycled.free_if_unused();
    }
}

/// Chunks of channel memory, kept while arrays are in use, and the arrays
/// given back.
struct Chunks {
    /// Every chunk's start, to free it by.
    chunks: Vec<NonNull<ENetChannel>>,
    /// The unused rest of the newest chunk.
    rest: Option<NonNull<ENetChannel>>,
    rest_len: usize,
    /// Arrays given back, by length (index `len - 1`).
    free: Vec<Vec<NonNull<ENetChannel>>>,
    /// Arrays handed out and not given back.
    in_use: usize,
}

// SAFETY: the pointers refer to chunks that are only handed out, taken
// back or freed under the lock.
unsafe impl Send for Chunks {}

impl Chunks {
    const fn new() -> Chunks {
        Chunks {
            chunks: Vec::new(),
            rest: None,
            rest_len: 0,
            free: Vec::new(),
            in_use: 0,
        }
    }

    /// Frees every chunk if no array is in use.
    fn free_if_unused(&mut self) {
        if self.in_use != 0 {
            return;
        }
        for chunk in self.chunks.drain(..) {
            // SAFETY: the chunk came from `hooks::malloc` while recycling
            // was on, which is only with the default allocator (hooks
            // installed since then do not own it); no array in it is in
            // use, and every pointer into it goes with the lists below.
            unsafe { hooks::free_from_default(chunk.as_ptr().cast()) };
        }
        self.rest = None;
        self.rest_len = 0;
        self.free = Vec::new();
    }

    /// Room for `len` channels: an array given back with that length, or
    /// the next `len` of the newest chunk (a new one if it has too few).
    fn take(&mut self, len: usize) -> Option<NonNull<ENetChannel>> {
        if let Some(array) = self.free.get_mut(len - 1).and_then(Vec::pop) {
            self.in_use += 1;
            return Some(array);
        }
        if self.rest_len < len {
            let chunk_len = len.max(CHUNK_CHANNELS);
            let bytes = chunk_len.checked_mul(core::mem::size_of::<ENetChannel>())?;
            // The unused rest of the old chunk stays unused: at most a
            // connection's worth of channels short of the chunk.
            let chunk = NonNull::new(hooks::malloc(bytes).cast::<ENetChannel>())?;
            self.chunks.push(chunk);
            self.rest = Some(chunk);
            self.rest_len = chunk_len;
        }
        let start = self.rest?;
        self.rest_len -= len;
        // SAFETY: `len` channels fit before the chunk's end (`rest_len` was
        // at least `len`), so the new rest starts inside it or at its end.
        self.rest = Some(unsafe { start.add(len) });
        self.in_use += 1;
        Some(start)
    }

    fn give_back(&mut self, array: NonNull<ENetChannel>, len: usize) {
        if self.free.len() < len {
            self.free.resize_with(len, Vec::new);
        }
        self.free[len - 1].push(array);
        self.in_use -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blank_channel() -> ENetChannel {
        // SAFETY: `ENetChannel` is integers and list nodes of raw
        // pointers, for which all zeroes is a valid value.
        unsafe { core::mem::zeroed() }
    }

    #[test]
    fn an_array_given_back_serves_the_next_of_its_length() {
        let mut chunks = Chunks::new();
        let first = chunks.take(2).unwrap();
        let second = chunks.take(2).unwrap();
        // SAFETY: only compares addresses inside one chunk.
        assert_eq!(unsafe { first.add(2) }, second, "packed in its chunk");
        chunks.give_back(first, 2);
        assert_ne!(chunks.take(3).unwrap(), first, "another length");
        assert_eq!(chunks.take(2).unwrap(), first);
    }

    #[test]
    fn chunks_are_freed_only_with_no_array_in_use() {
        let mut chunks = Chunks::new();
        let first = chunks.take(3).unwrap();
        let second = chunks.take(3).unwrap();
        chunks.give_back(first, 3);
        chunks.free_if_unused();
        assert_eq!(chunks.chunks.len(), 1, "one array is in use");
        assert_eq!(chunks.take(3), Some(first), "and the other still waits");
        chunks.give_back(first, 3);
        chunks.give_back(second, 3);
        chunks.free_if_unused();
        assert!(chunks.chunks.is_empty() && chunks.free.is_empty());
        assert_eq!(chunks.rest_len, 0);
        // Taken again, from a new chunk.
        assert!(chunks.take(3).is_some());
        assert_eq!((chunks.chunks.len(), chunks.in_use), (1, 1));
    }

    #[test]
    fn a_long_array_gets_a_chunk_of_its_own() {
        let mut chunks = Chunks::new();
        let short = chunks.take(CHUNK_CHANNELS - 1).unwrap();
        let last = chunks.take(1).unwrap();
        let long = chunks.take(CHUNK_CHANNELS + 1).unwrap();
        // SAFETY: the address just past `short` lies inside its chunk.
        let after_short = unsafe { short.add(CHUNK_CHANNELS - 1) };
        assert_eq!(after_short, last, "fills the chunk");
        // SAFETY: the address just past the chunk's last channel.
        let after_chunk = unsafe { last.add(1) };
        assert_ne!(after_chunk, long);
        assert_eq!(chunks.rest_len, 0, "sized to the array");
    }

    #[test]
    fn arrays_hold_what_they_were_made_with() {
        for (len, recycled) in [(1, false), (2, true), (255, false), (255, true)] {
            let mut made = 0;
            let mut array = ChannelArray::made(
                len,
                || {
                    made += 1;
                    let mut channel = blank_channel();
                    channel.outgoingReliableSequenceNumber = made;
                    channel
                },
                recycled,
            )
            .unwrap();
            assert_eq!(array.is_recycled(), recycled);
            assert_eq!(array.len(), len);
            let last = array.last().unwrap();
            assert_eq!(usize::from(last.outgoingReliableSequenceNumber), len);
            array[0].incomingReliableSequenceNumber = 7;
            assert_eq!(array[0].incomingReliableSequenceNumber, 7);
            assert_eq!(array.as_mut_ptr(), array.as_ptr().cast_mut());
        }
        assert!(ChannelArray::made(0, blank_channel, true).is_none());
        assert!(ChannelArray::made(0, blank_channel, false).is_none());
    }

    #[test]
    fn a_recycled_array_comes_back_made_anew() {
        // A length no other test asks for, so the process's free list of
        // it holds only this test's array.
        const LEN: usize = 37;
        // In use throughout, so that no `trim` elsewhere in the process
        // frees the chunks meanwhile.
        let _kept = ChannelArray::made(LEN, blank_channel, true).unwrap();
        let mut first = ChannelArray::made(LEN, blank_channel, true).unwrap();
        first[LEN - 1].incomingReliableSequenceNumber = 9;
        let address = first.as_mut_ptr();
        drop(first);
        let again = ChannelArray::made(LEN, blank_channel, true).unwrap();
        assert_eq!(again.as_ptr(), address.cast_const(), "the same memory");
        assert_eq!(again[LEN - 1].incomingReliableSequenceNumber, 0);
    }
}
