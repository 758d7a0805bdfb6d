//! The heap of a hook built for `wasm32-unknown-unknown` (the lean build: one core module, no
//! WASI imports).
//!
//! Rust's standard allocator on that target takes every byte of its heap with `memory.grow`.
//! hookhost gives each event a fresh instance, so a hook that allocates at all would grow its
//! memory on every call, and each growth is an `mprotect` of the instance's slot in the host
//! (and a TLB shoot-down on every core running the host's threads), undone again when the
//! instance is dropped. Here allocations are served from a zeroed arena in the module's own
//! `.bss` first — part of the memory the instance starts with, so a hook that stays within it
//! never grows its memory — and only then by the allocator std uses (dlmalloc), which grows
//! memory as std would.
//!
//! The arena is a bump allocator: an instance lives for one event, so nothing in it needs to be
//! reused, and bumping a pointer is several times cheaper than dlmalloc's bins (a tenth of the
//! guard's in-guest time went to them). The last allocation can grow, shrink and be freed in
//! place (a `String` or `Vec` being built); anything else freed in the arena stays where it is.
//! What the arena can waste is therefore bounded by its size: once it is used up, everything
//! goes to dlmalloc, which reuses what is freed.
//!
//! A hook that defines its own `#[global_allocator]` turns this off with the SDK's default
//! feature `heap` disabled.

use core::alloc::{GlobalAlloc, Layout};
use core::cell::{Cell, UnsafeCell};
use dlmalloc::{Allocator, Dlmalloc};

/// Heap the instance starts with. Every page of a fresh instance's memory is reset per call
/// (wasmtime 50, docs/PERFORMANCE.md), so it is small: 64 KiB covers the built-ins' usual calls.
const ARENA_BYTES: usize = 64 << 10;
const WASM_PAGE: usize = 64 << 10;

#[repr(C, align(16))]
struct Arena(UnsafeCell<[u8; ARENA_BYTES]>);

// SAFETY: wasm32-unknown-unknown without the atomics feature runs one thread.
unsafe impl Sync for Arena {}

static ARENA: Arena = Arena(UnsafeCell::new([0; ARENA_BYTES]));

/// Where dlmalloc gets memory from: `memory.grow`, as std's own wasm `System` does.
struct Pages;

// SAFETY: mirrors dlmalloc's own wasm `System`: regions are never released (`free` is false),
// fresh regions are zeroed (grown pages are zero).
unsafe impl Allocator for Pages {
    fn alloc(&self, size: usize) -> (*mut u8, usize, u32) {
        let pages = size.div_ceil(WASM_PAGE);
        let prev = core::arch::wasm32::memory_grow(0, pages);
        if prev == usize::MAX {
            return (core::ptr::null_mut(), 0, 0);
        }
        ((prev * WASM_PAGE) as *mut u8, pages * WASM_PAGE, 0)
    }

    fn remap(&self, _ptr: *mut u8, _old: usize, _new: usize, _can_move: bool) -> *mut u8 {
        core::ptr::null_mut()
    }

    fn free_part(&self, _ptr: *mut u8, _old: usize, _new: usize) -> bool {
        false
    }

    fn free(&self, _ptr: *mut u8, _size: usize) -> bool {
        false
    }

    fn can_release_part(&self, _flags: u32) -> bool {
        false
    }

    fn allocates_zeros(&self) -> bool {
        true
    }

    fn page_size(&self) -> usize {
        WASM_PAGE
    }
}

/// The global allocator of a lean hook: the arena, bumped; then dlmalloc.
pub struct Heap {
    /// Offset of the arena's first free byte.
    next: Cell<usize>,
    /// Offset of the arena's last allocation (what can grow or be freed in place).
    last: Cell<usize>,
    spill: UnsafeCell<Dlmalloc<Pages>>,
}

// SAFETY: one thread (see `Arena`).
unsafe impl Sync for Heap {}

impl Heap {
    const fn new() -> Self {
        Heap { next: Cell::new(0), last: Cell::new(usize::MAX), spill: UnsafeCell::new(Dlmalloc::new_with_allocator(Pages)) }
    }

    fn base() -> usize {
        ARENA.0.get() as usize
    }

    /// The arena offset of `ptr`, if it is in the arena.
    fn offset(ptr: *mut u8) -> Option<usize> {
        (ptr as usize).checked_sub(Self::base()).filter(|&at| at < ARENA_BYTES)
    }

    /// `layout` from the arena, or `None` when it does not fit in what is left.
    fn bump(&self, layout: Layout) -> Option<*mut u8> {
        // The arena's base is 16-aligned; larger alignments are left to dlmalloc.
        if layout.align() > 16 {
            return None;
        }
        let at = self.next.get().next_multiple_of(layout.align());
        let end = at.checked_add(layout.size()).filter(|&end| end <= ARENA_BYTES)?;
        self.next.set(end);
        self.last.set(at);
        Some((Self::base() + at) as *mut u8)
    }

    #[allow(clippy::mut_from_ref, reason = "one thread; no caller holds it across another call")]
    fn spill(&self) -> &mut Dlmalloc<Pages> {
        // SAFETY: one thread (see `Arena`), and each use ends before the next begins.
        unsafe { &mut *self.spill.get() }
    }
}

unsafe impl GlobalAlloc for Heap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match self.bump(layout) {
            Some(ptr) => ptr,
            None => unsafe { self.spill().malloc(layout.size(), layout.align()) },
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match Self::offset(ptr) {
            // The last allocation gives its bytes back; others stay (bounded by the arena).
            Some(at) if at == self.last.get() => {
                self.next.set(at);
                self.last.set(usize::MAX);
            }
            Some(_) => {}
            None => unsafe { self.spill().free(ptr, layout.size(), layout.align()) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match self.bump(layout) {
            Some(ptr) => {
                // Bytes a freed last allocation gave back may be dirty.
                unsafe { ptr.write_bytes(0, layout.size()) };
                ptr
            }
            None => unsafe { self.spill().calloc(layout.size(), layout.align()) },
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Some(at) = Self::offset(ptr) else {
            return unsafe { self.spill().realloc(ptr, layout.size(), layout.align(), new_size) };
        };
        // The last allocation grows or shrinks where it is, while the arena has room.
        if at == self.last.get() && at + new_size <= ARENA_BYTES {
            self.next.set(at + new_size);
            return ptr;
        }
        if new_size <= layout.size() {
            return ptr;
        }
        // SAFETY: the caller of GlobalAlloc::realloc vouches that `new_size` with this
        // alignment is a valid layout.
        let new = unsafe { self.alloc(Layout::from_size_align_unchecked(new_size, layout.align())) };
        if !new.is_null() {
            unsafe { core::ptr::copy_nonoverlapping(ptr, new, layout.size()) };
        }
        new
    }
}

#[global_allocator]
static HEAP: Heap = Heap::new();
