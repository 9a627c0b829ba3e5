//! Heap a one-off build freed but the allocator kept.
//!
//! glibc's allocator returns memory to the system only from the top of an
//! arena. A one-off build that allocates a lot and keeps a small result
//! allocated last (the OpenAPI document: 14 MB of temporaries, 0.8 MB kept)
//! pins everything below it: [`return_freed_heap`] gives the free pages back
//! (`malloc_trim`). That memory was really held (anonymous, private), so
//! giving it back lowers what the process costs the machine.
//!
//! (The binary's own code pages were once released here too, with
//! `MADV_DONTNEED`, so that idle RSS read lower: they are clean file pages the
//! kernel reclaims by itself under pressure, they came back on first use, and
//! the number they lowered measured no cost. `benches/idle.rs` reports
//! anonymous memory and PSS instead.)

/// Returns the allocator's free pages to the system, in every arena. Takes a
/// few milliseconds (each arena is locked while it is walked): for after a
/// one-off build, never per request.
pub fn return_freed_heap() {
    // SAFETY: malloc_trim only hands the allocator's own free pages back; no
    // allocation in use moves.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    let _trimmed = unsafe { libc::malloc_trim(0) };
}
