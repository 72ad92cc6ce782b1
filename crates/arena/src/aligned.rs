use std::alloc::{Layout, alloc_zeroed, dealloc, handle_alloc_error};
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// Alignment of every buffer: one cache line, and one AVX-512 register.
pub const ALIGN: usize = 64;

/// Floats per cache line.
pub const LINE_FLOATS: usize = ALIGN / size_of::<f32>();

/// `floats` rounded up to whole cache lines.
pub fn whole_lines(floats: usize) -> usize {
    floats.div_ceil(LINE_FLOATS) * LINE_FLOATS
}

/// A fixed-length, zero-initialised, 64-byte aligned `f32` buffer.
pub struct AlignedBuf {
    ptr: NonNull<f32>,
    len: usize,
}

// SAFETY: `AlignedBuf` owns its memory exclusively, like `Box<[f32]>`.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared access only hands out `&[f32]`.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// A zeroed buffer of `len` floats. `len == 0` allocates nothing.
    pub fn zeros(len: usize) -> Self {
        if len == 0 {
            return Self { ptr: aligned_dangling(), len: 0 };
        }
        let layout = layout_for(len);
        // SAFETY: the layout has non-zero size.
        let raw = unsafe { alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw.cast::<f32>()) else { handle_alloc_error(layout) };
        Self { ptr, len }
    }

    /// A buffer holding a copy of `values`.
    pub fn from_slice(values: &[f32]) -> Self {
        let mut buf = Self::zeros(values.len());
        buf.copy_from_slice(values);
        buf
    }

    /// Floats held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first float, 64-byte aligned.
    pub fn as_ptr(&self) -> *const f32 {
        self.ptr.as_ptr()
    }

    /// The first float, mutably.
    pub fn as_mut_ptr(&mut self) -> *mut f32 {
        self.ptr.as_ptr()
    }
}

fn layout_for(len: usize) -> Layout {
    let bytes = len.checked_mul(size_of::<f32>()).expect("AlignedBuf: size overflows usize");
    Layout::from_size_align(bytes, ALIGN).expect("AlignedBuf: size overflows isize")
}

/// A non-null pointer with the buffer alignment, for empty buffers.
pub(crate) fn aligned_dangling() -> NonNull<f32> {
    NonNull::new(std::ptr::without_provenance_mut::<f32>(ALIGN)).expect("ALIGN is non-zero")
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        if self.len != 0 {
            // SAFETY: allocated in `zeros` with exactly this layout.
            unsafe { dealloc(self.ptr.as_ptr().cast(), layout_for(self.len)) };
        }
    }
}

impl Deref for AlignedBuf {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        // SAFETY: `ptr` is valid for `len` initialised floats (zeroed at birth) and aligned.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [f32] {
        // SAFETY: as in `deref`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Default for AlignedBuf {
    fn default() -> Self {
        Self::zeros(0)
    }
}

impl Clone for AlignedBuf {
    fn clone(&self) -> Self {
        Self::from_slice(self)
    }
}

impl PartialEq for AlignedBuf {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl fmt::Debug for AlignedBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlignedBuf").field("len", &self.len).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_aligned_and_zeroed() {
        for len in [0, 1, 15, 16, 17, 1000] {
            let buf = AlignedBuf::zeros(len);
            assert_eq!(buf.as_ptr() as usize % ALIGN, 0, "len {len}");
            assert_eq!(buf.len(), len);
            assert!(buf.iter().all(|&x| x == 0.0));
        }
    }

    #[test]
    fn clone_copies_contents() {
        let a = AlignedBuf::from_slice(&[1.0, 2.0, 3.0]);
        let mut b = a.clone();
        b[0] = 9.0;
        assert_eq!(&a[..], &[1.0, 2.0, 3.0]);
        assert_eq!(&b[..], &[9.0, 2.0, 3.0]);
    }
}
