//! The heap of a hook built for `wasm32-unknown-unknown` (the lean build: one core module, no
//! WASI imports).
//!
//! Rust's standard allocator on that target takes every byte of its heap with `memory.grow`.
//! hookhost gives each event a fresh instance, so a hook that allocates at all would grow its
//! memory on every call, and each growth is an `mprotect` of the instance's slot in the host
//! (and a TLB shoot-down on every core running the host's threads), undone again when the
//! instance is dropped. Here the same allocator (dlmalloc, as std uses) is handed a zeroed
//! arena in the module's own `.bss` first — part of the memory the instance starts with, so a
//! hook that stays within it never grows its memory — and only then grows memory, as std would.
//!
//! A hook that defines its own `#[global_allocator]` turns this off with the SDK's default
//! feature `heap` disabled.

use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, Ordering};
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

/// Where dlmalloc gets memory from: the arena once, then `memory.grow`.
struct Pages {
    arena_taken: AtomicBool,
}

// SAFETY: mirrors dlmalloc's own wasm `System`: regions are never released (`free` is false),
// fresh regions are zeroed (the arena is .bss of a fresh instance; grown pages are zero).
unsafe impl Allocator for Pages {
    fn alloc(&self, size: usize) -> (*mut u8, usize, u32) {
        if size <= ARENA_BYTES && !self.arena_taken.swap(true, Ordering::Relaxed) {
            return (ARENA.0.get().cast::<u8>(), ARENA_BYTES, 0);
        }
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

/// The global allocator of a lean hook.
pub struct Heap(UnsafeCell<Dlmalloc<Pages>>);

// SAFETY: one thread (see `Arena`).
unsafe impl Sync for Heap {}

impl Heap {
    const fn new() -> Self {
        Heap(UnsafeCell::new(Dlmalloc::new_with_allocator(Pages { arena_taken: AtomicBool::new(false) })))
    }
}

unsafe impl GlobalAlloc for Heap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { (*self.0.get()).malloc(layout.size(), layout.align()) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { (*self.0.get()).free(ptr, layout.size(), layout.align()) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        unsafe { (*self.0.get()).calloc(layout.size(), layout.align()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        unsafe { (*self.0.get()).realloc(ptr, layout.size(), layout.align(), new_size) }
    }
}

#[global_allocator]
static HEAP: Heap = Heap::new();
