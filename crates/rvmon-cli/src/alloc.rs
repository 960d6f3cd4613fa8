//! The global allocator: mimalloc, called without its aligned entry points where it can be.
//!
//! PERF: `mi_malloc_aligned` (what the `mimalloc` crate calls for every request) takes its
//! fast path only when the next free block of the size class happens to be aligned, and
//! otherwise over-allocates from another size class, which never refills the first. Hash
//! tables ask for 16-byte alignment (for their control bytes) at sizes like 52 bytes, served
//! from 56-byte blocks: in a 400 k-event run of paper 04's P4, 1.5 M requests took the slow
//! path. Here a request aligned to at most 16 bytes asks `mi_malloc` for its size rounded up
//! to the alignment; mimalloc's blocks of such sizes are aligned (the result is checked, and
//! the aligned entry point is the fallback).

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc,
    mi_zalloc_aligned,
};

/// Alignments mimalloc gives to blocks whose size is a multiple of them.
const NATURAL: usize = 16;

pub struct MiMalloc;

fn aligned(p: *mut c_void, align: usize) -> bool {
    (p as usize) & (align - 1) == 0
}

/// A block for `layout` from `plain` (size rounded up to the alignment, result checked), or
/// from `aligned_alloc` when the alignment is larger than mimalloc's natural one or the block
/// came out misaligned.
unsafe fn allocate(
    layout: Layout,
    plain: unsafe extern "C" fn(usize) -> *mut c_void,
    aligned_alloc: unsafe extern "C" fn(usize, usize) -> *mut c_void,
) -> *mut u8 {
    let (size, align) = (layout.pad_to_align().size(), layout.align());
    if align <= NATURAL {
        let p = plain(size);
        if p.is_null() || aligned(p, align) {
            return p.cast();
        }
        mi_free(p);
    }
    aligned_alloc(size, align).cast()
}

// SAFETY: every block comes from mimalloc and is returned to it with `mi_free`, which needs no
// layout. A block is handed out only if it is aligned as asked (checked) and at least as large
// as asked.
unsafe impl GlobalAlloc for MiMalloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        allocate(layout, mi_malloc, mi_malloc_aligned)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        allocate(layout, mi_zalloc, mi_zalloc_aligned)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        mi_free(ptr.cast());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let align = layout.align();
        let size = new_size.div_ceil(align) * align;
        if align > NATURAL {
            return mi_realloc_aligned(ptr.cast(), size, align).cast();
        }
        let p = mi_realloc(ptr.cast(), size);
        if p.is_null() || aligned(p, align) {
            return p.cast();
        }
        // Moved to a block that is not aligned enough (not expected: see `alloc`). `ptr` is
        // already freed, so failing now cannot return null: it aborts, as running out of
        // memory does elsewhere.
        let q = mi_malloc_aligned(size, align);
        if q.is_null() {
            std::alloc::handle_alloc_error(Layout::from_size_align_unchecked(size, align));
        }
        std::ptr::copy_nonoverlapping(p.cast::<u8>(), q.cast::<u8>(), layout.size().min(new_size));
        mi_free(p);
        q.cast()
    }
}
