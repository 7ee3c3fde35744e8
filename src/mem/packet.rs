//! Packets: created, resized and destroyed through the allocator hooks,
//! and [`PacketRef`], the engine's counted handle to one.
//!
//! Packets and their data come from [`hooks::malloc`] because C code
//! receives them and frees them with `enet_packet_destroy`; the free
//! callback runs just before the memory is released.

use core::ffi::{c_int, c_void};
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ptr::{self, NonNull};

use super::program_code::ProgramCode;
use super::{hooks, pool, PacketFlags};
use crate::abi::ENetPacket;

/// Creates a packet of `data_length` bytes, copied from `data` unless `data`
/// is NULL (then left uninitialised), or borrowing `data` itself when
/// `NO_ALLOCATE` is set. A zero-length packet has NULL data.
///
/// The packet and its bytes share one allocation (the bytes right after the
/// header), so a packet costs one `malloc` and one `free` where stock pays
/// two of each; `resize` may later move the bytes out of line. Small
/// blocks are recycled through [`pool`].
///
/// # Safety
/// `data` must be NULL or readable for `data_length` bytes; with
/// `NO_ALLOCATE` it must stay valid for the packet's life.
pub unsafe fn create(data: *const c_void, data_length: usize, flags: u32) -> *mut ENetPacket {
    // SAFETY: forwarded contract.
    unsafe { create_with(data, data_length, flags, None) }
}

/// [`create`], with `read` for the packet pool's switches if the pool has
/// not decided yet ([`pool::allocate_reading`]): the C library's first
/// packet may come before its first host.
///
/// # Safety
/// As for [`create`].
pub unsafe fn create_reading(
    data: *const c_void,
    data_length: usize,
    flags: u32,
    read: fn() -> pool::PoolSwitches,
) -> *mut ENetPacket {
    // SAFETY: forwarded contract.
    unsafe { create_with(data, data_length, flags, Some(read)) }
}

#[inline(always)]
unsafe fn create_with(
    data: *const c_void,
    data_length: usize,
    flags: u32,
    read: Option<fn() -> pool::PoolSwitches>,
) -> *mut ENetPacket {
    let borrowed = PacketFlags::from_bits_retain(flags).contains(PacketFlags::NO_ALLOCATE);
    let inline_length = if borrowed { 0 } else { data_length };
    let Some(size) = HEADER_SIZE.checked_add(inline_length) else {
        return ptr::null_mut();
    };
    let packet = match read {
        Some(read) => pool::allocate_reading(size, read),
        None => pool::allocate(size),
    }
    .cast::<ENetPacket>();
    if packet.is_null() {
        return ptr::null_mut();
    }
    let packet_data = if borrowed {
        data.cast_mut().cast::<u8>()
    } else if data_length == 0 {
        ptr::null_mut()
    } else {
        let inline = inline_data(packet);
        if !data.is_null() {
            // SAFETY: the caller guarantees `data_length` readable bytes, and
            // the allocation holds that many after the header.
            unsafe { ptr::copy_nonoverlapping(data.cast::<u8>(), inline, data_length) };
        }
        inline
    };
    // SAFETY: `packet` is a fresh, suitably aligned allocation for one
    // ENetPacket (malloc alignment covers it).
    unsafe {
        packet.write(ENetPacket {
            referenceCount: 0,
            flags,
            data: packet_data,
            dataLength: data_length,
            freeCallback: None,
            userData: ptr::null_mut(),
        });
    }
    packet
}

const HEADER_SIZE: usize = core::mem::size_of::<ENetPacket>();

/// Where a packet's bytes sit when they share its allocation.
fn inline_data(packet: *mut ENetPacket) -> *mut u8 {
    packet.cast::<u8>().wrapping_add(HEADER_SIZE)
}

/// Whether the packet owns a separate allocation for its bytes (moved out
/// of line by `resize`, or replaced by the program): not borrowed, not
/// NULL, not the bytes after the header.
fn owns_separate_data(packet: *mut ENetPacket, flags: u32, data: *mut u8) -> bool {
    !PacketFlags::from_bits_retain(flags).contains(PacketFlags::NO_ALLOCATE)
        && !data.is_null()
        && data != inline_data(packet)
}

/// Runs the free callback, then frees the data (unless borrowed) and the packet.
///
/// # Safety
/// `packet` must be NULL or a live packet from [`create`], not used again.
pub unsafe fn destroy(packet: *mut ENetPacket) {
    if packet.is_null() {
        return;
    }
    // SAFETY: the caller passes a live packet.
    if let Some(callback) = unsafe { (*packet).freeCallback } {
        let _running = ProgramCode::enter();
        // SAFETY: the program asked to be told before its packet is freed.
        unsafe { callback(packet) };
    }
    // SAFETY: the packet is still live; the callback may not free it.
    let (flags, data) = unsafe { ((*packet).flags, (*packet).data) };
    if owns_separate_data(packet, flags, data) {
        // SAFETY: separate owned data came from `hooks::malloc` in `resize`
        // (or from the program, which must allocate it the same way).
        unsafe { hooks::free(data.cast()) };
    }
    // SAFETY: the packet itself came from `pool::allocate` in `create`,
    // and its block holds at least `block_size` bytes.
    unsafe { pool::release(packet.cast(), block_size(packet, data)) };
}

/// A lower bound of the packet's block size, for the pool. Bytes still
/// inline were never grown in place (growing moves them out), so the block
/// holds at least the header and `dataLength` of them; otherwise it is
/// known to hold the header only.
fn block_size(packet: *mut ENetPacket, data: *mut u8) -> usize {
    if !data.is_null() && data == inline_data(packet) {
        // SAFETY: the packet is live until its block is released.
        HEADER_SIZE.saturating_add(unsafe { (*packet).dataLength })
    } else {
        HEADER_SIZE
    }
}

/// Resizes the packet's data. Shrinking (or any size with `NO_ALLOCATE`)
/// only changes the length; growing copies into a new allocation of its
/// own (the bytes after the header stay unused until the packet is freed).
///
/// # Safety
/// `packet` must be a live packet from [`create`].
pub unsafe fn resize(packet: &mut ENetPacket, data_length: usize) -> c_int {
    if data_length <= packet.dataLength
        || PacketFlags::from_bits_retain(packet.flags).contains(PacketFlags::NO_ALLOCATE)
    {
        packet.dataLength = data_length;
        return 0;
    }
    let grown = hooks::malloc(data_length).cast::<u8>();
    if grown.is_null() {
        return -1;
    }
    if !packet.data.is_null() {
        // SAFETY: the old data holds `dataLength` bytes, fewer than the new
        // allocation's `data_length`.
        unsafe { ptr::copy_nonoverlapping(packet.data, grown, packet.dataLength) };
        let header: *mut ENetPacket = packet;
        if owns_separate_data(header, packet.flags, packet.data) {
            // SAFETY: separate owned data came from `hooks::malloc`.
            unsafe { hooks::free(packet.data.cast()) };
        }
    }
    packet.data = grown;
    packet.dataLength = data_length;
    0
}

/// One counted reference to a live packet, as the engine holds them in its
/// queues. Each `PacketRef` stands for one unit of the packet's
/// `referenceCount`, which is the count C code sees. Dropping it (or
/// [`PacketRef::release`]) gives that unit back, and the last one destroys
/// the packet; [`PacketRef::release_as_sent`] first marks it
/// `ENET_PACKET_FLAG_SENT`, as stock ENet does when the last queued command
/// using it is done.
///
/// The packet is shared with C code, so the handle never forms a Rust
/// reference to the whole `ENetPacket`: fields are read and written one
/// at a time through the raw pointer, and only the bytes are lent out (as
/// `&[u8]`, which the engine never writes).
#[derive(Debug)]
pub struct PacketRef {
    packet: NonNull<ENetPacket>,
}

/// A packet the program owns, seen without holding a reference (the
/// packet given to `enet_peer_send` or `enet_host_broadcast`): the engine
/// [`retain`](PacketView::retain)s it once per command that keeps it.
/// Dropping a view does nothing.
#[derive(Debug, Clone, Copy)]
pub struct PacketView<'a> {
    packet: NonNull<ENetPacket>,
    _packet: PhantomData<&'a ENetPacket>,
}

impl<'a> PacketView<'a> {
    /// A view of the program's packet, or `None` for NULL.
    ///
    /// # Safety
    /// `packet` must be NULL or a live packet from [`create`] that stays
    /// alive for `'a` and while any reference taken from the view is held
    /// (C code must not destroy a packet it has queued, as with stock).
    pub unsafe fn from_raw(packet: *mut ENetPacket) -> Option<PacketView<'a>> {
        NonNull::new(packet).map(|packet| PacketView {
            packet,
            _packet: PhantomData,
        })
    }

    /// A new counted reference to the packet.
    pub fn retain(self) -> PacketRef {
        // SAFETY: the view's packet is live (its constructor's contract).
        unsafe { retain_count(self.packet) };
        PacketRef {
            packet: self.packet,
        }
    }

    pub fn flags(self) -> PacketFlags {
        // SAFETY: as in `retain`; a single field is read.
        PacketFlags::from_bits_retain(unsafe { (*self.packet.as_ptr()).flags })
    }

    pub fn len(self) -> usize {
        // SAFETY: as in `retain`; a single field is read.
        unsafe { (*self.packet.as_ptr()).dataLength }
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    pub fn reference_count(self) -> usize {
        // SAFETY: as in `retain`; a single field is read.
        unsafe { (*self.packet.as_ptr()).referenceCount }
    }

    /// The packet's bytes (empty when its data pointer is NULL).
    pub fn data(self) -> &'a [u8] {
        // SAFETY: as in `retain`; single fields are read.
        let (data, len) = unsafe {
            let packet = self.packet.as_ptr();
            ((*packet).data, (*packet).dataLength)
        };
        if data.is_null() {
            return &[];
        }
        // SAFETY: a live packet's data holds `dataLength` readable bytes,
        // which nothing in the engine writes while the packet is alive.
        unsafe { core::slice::from_raw_parts(data, len) }
    }

    pub fn as_ptr(self) -> *mut ENetPacket {
        self.packet.as_ptr()
    }
}

impl<'a> From<&'a PacketRef> for PacketView<'a> {
    fn from(packet: &'a PacketRef) -> Self {
        packet.view()
    }
}

/// Adds one to a live packet's `referenceCount`.
///
/// # Safety
/// `packet` must be live.
unsafe fn retain_count(packet: NonNull<ENetPacket>) {
    // SAFETY: the caller's contract; one field is written in place, no
    // reference to the packet is formed.
    unsafe { (*packet.as_ptr()).referenceCount += 1 };
}

impl PacketRef {
    /// Takes a new reference to a packet the program handed us.
    ///
    /// # Safety
    /// As for [`PacketView::from_raw`].
    pub unsafe fn retain_raw(packet: *mut ENetPacket) -> Option<PacketRef> {
        // SAFETY: forwarded contract.
        unsafe { PacketView::from_raw(packet) }.map(PacketView::retain)
    }

    /// Takes over a reference already counted in the packet (one the
    /// engine handed out as a raw pointer and now gets back).
    ///
    /// # Safety
    /// `packet` must be NULL or a live packet whose `referenceCount`
    /// includes one unit that nothing else will give back.
    pub unsafe fn adopt_raw(packet: *mut ENetPacket) -> Option<PacketRef> {
        NonNull::new(packet).map(|packet| PacketRef { packet })
    }

    /// Creates a packet holding a copy of `data`, with one reference held
    /// by the returned handle. `None` when allocation fails.
    pub fn new_with_data(data: &[u8], flags: PacketFlags) -> Option<PacketRef> {
        // SAFETY: `data` is readable for its length and is copied.
        let packet =
            NonNull::new(unsafe { create(data.as_ptr().cast(), data.len(), flags.bits()) })?;
        // SAFETY: the packet was just created.
        unsafe { retain_count(packet) };
        Some(PacketRef { packet })
    }

    /// A packet of `len` uninitialised bytes with one reference held by
    /// the handle, and where its bytes start (NULL when `len` is 0). Only
    /// for this module's writers, which fill every byte before anything
    /// can read them.
    pub(super) fn new_uninit(len: usize, flags: PacketFlags) -> Option<(PacketRef, *mut u8)> {
        // SAFETY: NULL data asks `create` for an uninitialised buffer.
        let packet = NonNull::new(unsafe { create(ptr::null(), len, flags.bits()) })?;
        // SAFETY: the packet was just created.
        unsafe { retain_count(packet) };
        // SAFETY: one field of the live packet is read.
        let data = unsafe { (*packet.as_ptr()).data };
        Some((PacketRef { packet }, data))
    }

    /// Creates a packet of `len` bytes made of `parts` laid end to end,
    /// with one reference held by the handle. The bytes are written once,
    /// never zero-filled first: `None` (nothing leaked) unless the parts
    /// fill exactly `len` bytes, or when allocation fails.
    pub fn new_from_parts<'a>(
        len: usize,
        flags: PacketFlags,
        parts: impl IntoIterator<Item = &'a [u8]>,
    ) -> Option<PacketRef> {
        // The bytes are only written below, and read once all are.
        let (handle, start) = Self::new_uninit(len, flags)?;
        let mut filled = 0usize;
        for part in parts {
            let end = filled.checked_add(part.len()).filter(|&end| end <= len);
            let Some(end) = end else {
                return None; // the handle's drop frees the packet
            };
            // SAFETY: `filled..end` lies inside the packet's `len` bytes
            // (checked above; `start` is non-NULL whenever `len > 0`, and an
            // empty part copies nothing), and `part` is a separate slice.
            unsafe { ptr::copy_nonoverlapping(part.as_ptr(), start.add(filled), part.len()) };
            filled = end;
        }
        (filled == len).then_some(handle)
    }

    /// A view of the same packet, for as long as this reference is held.
    pub fn view(&self) -> PacketView<'_> {
        PacketView {
            packet: self.packet,
            _packet: PhantomData,
        }
    }

    /// Another reference to the same packet.
    pub fn retain(&self) -> PacketRef {
        self.view().retain()
    }

    /// Gives this reference back; the last one frees the packet. For
    /// packets that were never sent or delivered (reset queues, throttled
    /// sends). The same as dropping it, said out loud.
    pub fn release(self) {
        drop(self);
    }

    /// Gives this reference back once its command was sent (unreliable) or
    /// acknowledged (reliable); the last one marks the packet
    /// `ENET_PACKET_FLAG_SENT` before freeing it, as stock ENet does.
    pub fn release_as_sent(self) {
        if self.reference_count() == 1 {
            // SAFETY: the held reference keeps the packet live; one field
            // is updated in place.
            unsafe { (*self.packet.as_ptr()).flags |= PacketFlags::SENT.bits() };
        }
        drop(self);
    }

    /// Gives this reference to the program (a received packet in an event
    /// or from `enet_peer_receive`): the count drops but nothing is freed,
    /// since the program now owns the packet and destroys it.
    pub fn hand_to_program(self) -> *mut ENetPacket {
        let packet = ManuallyDrop::new(self).packet;
        // SAFETY: the reference being given up kept the packet live.
        unsafe {
            let count = &raw mut (*packet.as_ptr()).referenceCount;
            *count = (*count).saturating_sub(1);
        }
        packet.as_ptr()
    }

    pub fn as_ptr(&self) -> *mut ENetPacket {
        self.packet.as_ptr()
    }

    pub fn flags(&self) -> PacketFlags {
        self.view().flags()
    }

    pub fn len(&self) -> usize {
        self.view().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn reference_count(&self) -> usize {
        self.view().reference_count()
    }

    /// The packet's bytes (empty when its data pointer is NULL).
    pub fn data(&self) -> &[u8] {
        self.view().data()
    }
}

impl Drop for PacketRef {
    fn drop(&mut self) {
        let packet = self.packet.as_ptr();
        // SAFETY: this reference kept the packet live until now; single
        // fields are updated in place.
        let left = unsafe {
            (*packet).referenceCount = (*packet).referenceCount.saturating_sub(1);
            (*packet).referenceCount
        };
        if left == 0 {
            // SAFETY: no reference is left; the packet is live until here
            // and is not used afterwards.
            unsafe { destroy(packet) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_release_destroys_and_marks_sent() {
        static mut FREED_FLAGS: u32 = 0;
        unsafe extern "C" fn on_free(packet: *mut ENetPacket) {
            // SAFETY: called with the live packet just before it is freed.
            unsafe { FREED_FLAGS = (*packet).flags };
        }
        let packet = PacketRef::new_with_data(b"abc", PacketFlags::RELIABLE).unwrap();
        assert_eq!(packet.reference_count(), 1);
        // SAFETY: the packet is live and ours.
        unsafe { (*packet.as_ptr()).freeCallback = Some(on_free) };
        let second = packet.retain();
        assert_eq!(second.reference_count(), 2);
        packet.release_as_sent();
        assert_eq!(second.reference_count(), 1);
        assert_eq!(second.data(), b"abc");
        second.release_as_sent();
        // SAFETY: single-threaded test reads what the callback wrote.
        let freed_flags = unsafe { FREED_FLAGS };
        assert_eq!(
            freed_flags,
            (PacketFlags::RELIABLE | PacketFlags::SENT).bits()
        );
    }

    #[test]
    fn a_packet_from_parts_must_be_filled_exactly() {
        let parts: [&[u8]; 3] = [b"ab", b"", b"cde"];
        let packet = PacketRef::new_from_parts(5, PacketFlags::NONE, parts).unwrap();
        assert_eq!(packet.data(), b"abcde");
        packet.release();
        assert!(PacketRef::new_from_parts(6, PacketFlags::NONE, parts).is_none());
        assert!(PacketRef::new_from_parts(4, PacketFlags::NONE, parts).is_none());
        let empty = PacketRef::new_from_parts(0, PacketFlags::NONE, []).unwrap();
        assert!(empty.data().is_empty());
        empty.release();
    }

    #[test]
    fn handing_to_the_program_keeps_the_packet() {
        let packet = PacketRef::new_with_data(&[0, 0, 0, 0], PacketFlags::NONE).unwrap();
        assert_eq!(packet.data(), &[0, 0, 0, 0]);
        let raw = packet.hand_to_program();
        // SAFETY: the program (this test) now owns the packet.
        unsafe {
            assert_eq!((*raw).referenceCount, 0);
            destroy(raw);
        }
    }
}
