//! Owners of values and arrays allocated through the ENet allocator hooks.
//!
//! [`CBox`] and [`CSlice`] behave like `Box<T>` and `Box<[T]>` but take
//! their memory from [`hooks::malloc`], because C code holds pointers into
//! them (`ENetHost *`, `host->peers`, `peer->channels`) and a program's
//! allocator hooks must see that memory as stock ENet's would.

use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};
use core::ptr::NonNull;

use super::hooks;

/// The alignment every `malloc` we may be given guarantees: two words
/// (16 bytes on 64-bit systems; 8 on 32-bit Windows and ARM, where the C
/// runtime promises no more), checked at compile time for each type.
const MALLOC_ALIGNMENT: usize = 2 * core::mem::size_of::<usize>();

/// Allocates room for `count` values of `T`; `None` when the hooks fail.
fn allocate<T>(count: usize) -> Option<NonNull<T>> {
    const { assert!(core::mem::align_of::<T>() <= MALLOC_ALIGNMENT) };
    let bytes = core::mem::size_of::<T>().checked_mul(count)?;
    NonNull::new(hooks::malloc(bytes).cast::<T>())
}

/// One value in hook-allocated memory.
pub struct CBox<T> {
    pointer: NonNull<T>,
    owns: PhantomData<T>,
}

impl<T> CBox<T> {
    /// Moves `value` into hook-allocated memory; `None` when allocation fails.
    pub fn new(value: T) -> Option<Self> {
        let pointer = allocate::<T>(1)?;
        // SAFETY: `pointer` is a fresh allocation sized and aligned for T.
        unsafe { pointer.as_ptr().write(value) };
        Some(CBox {
            pointer,
            owns: PhantomData,
        })
    }

    /// Makes a T in hook-allocated memory, in place: the memory is zeroed,
    /// then `init` gets its address to fill in, and answers whether it
    /// did. A large value made this way (a host holds its 11 KiB
    /// `ENetHost`) goes straight to the heap rather than through copies on
    /// the stack, whose pages stay resident for the rest of the process.
    /// `None` when allocation fails or `init` answers false (the memory is
    /// then freed, and nothing in it dropped). The memory is also freed if
    /// `init` panics, so a panic the C boundary catches leaks nothing.
    ///
    /// # Safety
    /// When `init` answers true, every field of the T at the address must
    /// hold a valid value (zero bytes may be one).
    pub unsafe fn try_new_zeroed_with(init: impl FnOnce(*mut T) -> bool) -> Option<Self> {
        let pointer = allocate::<T>(1)?;
        // SAFETY: `pointer` is a fresh allocation of one T.
        unsafe { pointer.as_ptr().write_bytes(0, 1) };
        let unmade = FreedUnlessKept(pointer.as_ptr().cast());
        if !init(pointer.as_ptr()) {
            return None;
        }
        core::mem::forget(unmade);
        Some(CBox {
            pointer,
            owns: PhantomData,
        })
    }

    /// Hands the allocation to C; get it back with [`CBox::from_raw`].
    pub fn into_raw(self) -> *mut T {
        let pointer = self.pointer.as_ptr();
        core::mem::forget(self);
        pointer
    }

    /// Takes back an allocation made by [`CBox::into_raw`].
    ///
    /// # Safety
    /// `pointer` must come from `CBox::<T>::into_raw` and not be owned
    /// elsewhere.
    pub unsafe fn from_raw(pointer: *mut T) -> Option<Self> {
        NonNull::new(pointer).map(|pointer| CBox {
            pointer,
            owns: PhantomData,
        })
    }

    pub fn as_ptr(&self) -> *mut T {
        self.pointer.as_ptr()
    }
}

impl<T> Deref for CBox<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the box owns an initialised T for its whole life.
        unsafe { self.pointer.as_ref() }
    }
}

impl<T> DerefMut for CBox<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as above, and `&mut self` makes the access unique.
        unsafe { self.pointer.as_mut() }
    }
}

/// Memory from [`hooks::malloc`] that is freed when this is dropped,
/// on a return or an unwind, unless it is forgotten first; whatever is in
/// it is not dropped.
struct FreedUnlessKept(*mut core::ffi::c_void);

impl Drop for FreedUnlessKept {
    fn drop(&mut self) {
        // SAFETY: the memory came from the hooks' malloc and, not having
        // been kept, has no other owner; it is freed once.
        unsafe { hooks::free(self.0) };
    }
}

impl<T> Drop for CBox<T> {
    fn drop(&mut self) {
        // SAFETY: the value is initialised and is dropped exactly once, then
        // its memory goes back to the allocator it came from.
        unsafe {
            self.pointer.as_ptr().drop_in_place();
            hooks::free(self.pointer.as_ptr().cast());
        }
    }
}

/// An array in hook-allocated memory whose length is fixed at creation.
pub struct CSlice<T> {
    pointer: NonNull<T>,
    len: usize,
    owns: PhantomData<T>,
}

impl<T> CSlice<T> {
    /// Allocates `len` values made by `make(index)`; `None` when allocation
    /// fails. Like stock ENet, asks the allocator even for zero elements.
    pub fn new_with(len: usize, mut make: impl FnMut(usize) -> T) -> Option<Self> {
        let pointer = allocate::<T>(len)?;
        for index in 0..len {
            // SAFETY: `index < len`, inside the fresh allocation; each slot
            // is written once before the slice is ever read.
            unsafe { pointer.as_ptr().add(index).write(make(index)) };
        }
        Some(CSlice {
            pointer,
            len,
            owns: PhantomData,
        })
    }

    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.pointer.as_ptr()
    }

    pub fn as_ptr(&self) -> *const T {
        self.pointer.as_ptr()
    }
}

impl<T> Deref for CSlice<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialised values live at `pointer`.
        unsafe { core::slice::from_raw_parts(self.pointer.as_ptr(), self.len) }
    }
}

impl<T> DerefMut for CSlice<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as above, and `&mut self` makes the access unique.
        unsafe { core::slice::from_raw_parts_mut(self.pointer.as_ptr(), self.len) }
    }
}

impl<T> Drop for CSlice<T> {
    fn drop(&mut self) {
        // SAFETY: every element was initialised in `new_with`; they are
        // dropped once, then the memory returns to its allocator.
        unsafe {
            core::ptr::slice_from_raw_parts_mut(self.pointer.as_ptr(), self.len).drop_in_place();
            hooks::free(self.pointer.as_ptr().cast());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_slices_round_trip() {
        let mut boxed = CBox::new(41u64).unwrap();
        *boxed += 1;
        assert_eq!(*boxed, 42);
        let raw = boxed.into_raw();
        // SAFETY: `raw` came from `into_raw` just above.
        let back = unsafe { CBox::from_raw(raw) }.unwrap();
        assert_eq!(*back, 42);

        let mut slice = CSlice::new_with(5, |i| i * 10).unwrap();
        slice[4] += 1;
        assert_eq!(&*slice, &[0, 10, 20, 30, 41]);
        let empty = CSlice::<u32>::new_with(0, |_| 0).unwrap();
        assert!(empty.is_empty());
    }

    #[test]
    fn drop_runs_for_every_element() {
        use std::rc::Rc;
        let counter = Rc::new(());
        let slice = CSlice::new_with(3, |_| counter.clone()).unwrap();
        assert_eq!(Rc::strong_count(&counter), 4);
        drop(slice);
        assert_eq!(Rc::strong_count(&counter), 1);
    }
}
