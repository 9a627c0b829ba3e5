//! What the process holds once it is done with something big: the binary's
//! pages only start-up used, and heap a one-off build freed but the allocator
//! kept.
//!
//! **Start-up code.** Starting runs code that serving never runs again: the
//! migrations, the schema checks, every route built once per worker, the
//! wiring of each subsystem. Each page of the binary the kernel mapped for it
//! stays in the process's resident set: 3 s after starting on an empty SQLite
//! database, 27 MB of the 40 MB resident were the binary's own code and
//! read-only data, of which idling uses about 2 MB (`benches/idle.rs`). Once
//! the server runs, [`release_startup_code`] tells the kernel the process no
//! longer needs the pages of its read-only file mappings (`MADV_DONTNEED`):
//! they leave the resident set and stay in the page cache, and a page serving
//! needs is mapped again on its first use (a minor fault, no read). The kernel
//! may drop clean pages the same way at any time under memory pressure; this
//! does it once, when the process knows start-up is over. Only mappings that
//! hold no private copy of a page are released (no `Anonymous` page: the
//! relocated data made read-only after loading is one such copy), so nothing
//! the process wrote is lost; a released page reads back exactly as before.
//!
//! **Freed heap.** glibc's allocator returns memory to the system only from
//! the top of an arena. A one-off build that allocates a lot and keeps a small
//! result allocated last (the OpenAPI document: 14 MB of temporaries, 0.8 MB
//! kept) pins everything below it: [`return_freed_heap`] gives the free pages
//! back (`malloc_trim`).

use std::ops::Range;
use std::path::Path;

/// What [`release_startup_code`] gave back.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Released {
    /// Mappings of the binary released.
    pub mappings: usize,
    /// Their resident bytes just before.
    pub resident_bytes: u64,
}

/// Releases the resident pages of the running binary's read-only mappings
/// that hold only the file's own pages. A no-op outside Linux.
#[cfg(target_os = "linux")]
pub fn release_startup_code() -> std::io::Result<Released> {
    let exe = std::fs::read_link("/proc/self/exe")?;
    let smaps = std::fs::read_to_string("/proc/self/smaps")?;
    let mut released = Released::default();
    for mapping in releasable(&smaps, &exe) {
        let start = mapping.range.start as *mut libc::c_void;
        // SAFETY: the range is one whole private, read-only mapping of the
        // binary file with no anonymous page: its contents are the file's, so
        // dropping them from the page tables only makes the next access map
        // the same file page again. No Rust object lives in it as owned memory.
        if unsafe { libc::madvise(start, mapping.range.len(), libc::MADV_DONTNEED) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        released.mappings += 1;
        released.resident_bytes += mapping.resident_bytes;
    }
    Ok(released)
}

#[cfg(not(target_os = "linux"))]
pub fn release_startup_code() -> std::io::Result<Released> {
    Ok(Released::default())
}

/// Returns the allocator's free pages to the system, in every arena. Takes a
/// few milliseconds (each arena is locked while it is walked): for after a
/// one-off build, never per request.
pub fn return_freed_heap() {
    // SAFETY: malloc_trim only hands the allocator's own free pages back; no
    // allocation in use moves.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    let _trimmed = unsafe { libc::malloc_trim(0) };
}

/// A mapping [`release_startup_code`] may give back.
#[derive(Debug, PartialEq, Eq)]
struct Mapping {
    range: Range<usize>,
    resident_bytes: u64,
}

/// A mapping of `/proc/self/smaps` as its lines arrive.
struct Reading {
    range: Range<usize>,
    /// Private, read-only, of the binary.
    eligible: bool,
    rss_kib: Option<u64>,
    anonymous_kib: Option<u64>,
}

impl Reading {
    fn releasable(self) -> Option<Mapping> {
        match (self.eligible, self.rss_kib, self.anonymous_kib) {
            (true, Some(rss_kib), Some(0)) => Some(Mapping { range: self.range, resident_bytes: rss_kib * 1024 }),
            _ => None,
        }
    }
}

/// The mappings of `exe` in `smaps` (the text of `/proc/<pid>/smaps`) that are
/// private and read-only and hold no anonymous page.
fn releasable(smaps: &str, exe: &Path) -> Vec<Mapping> {
    let Some(exe) = exe.to_str() else { return Vec::new() };
    let mut found = Vec::new();
    let mut current: Option<Reading> = None;
    for line in smaps.lines() {
        if let Some((range, perms, path)) = mapping_header(line) {
            found.extend(current.take().and_then(Reading::releasable));
            let eligible = (perms == "r--p" || perms == "r-xp") && path == exe;
            current = Some(Reading { range, eligible, rss_kib: None, anonymous_kib: None });
        } else if let Some(reading) = current.as_mut() {
            if let Some(kib) = field_kib(line, "Rss:") {
                reading.rss_kib = Some(kib);
            } else if let Some(kib) = field_kib(line, "Anonymous:") {
                reading.anonymous_kib = Some(kib);
            }
        }
    }
    found.extend(current.and_then(Reading::releasable));
    found
}

/// `start-end perms offset device inode path` (the path may be absent).
fn mapping_header(line: &str) -> Option<(Range<usize>, &str, String)> {
    let mut parts = line.split_whitespace();
    let (start, end) = parts.next()?.split_once('-')?;
    let range = usize::from_str_radix(start, 16).ok()?..usize::from_str_radix(end, 16).ok()?;
    let perms = parts.next()?;
    if perms.len() != 4 {
        return None;
    }
    let path = parts.skip(3).collect::<Vec<_>>().join(" ");
    Some((range, perms, path))
}

/// The value of `name` (`Rss:`) in a `Rss:   1234 kB` line.
fn field_kib(line: &str, name: &str) -> Option<u64> {
    line.strip_prefix(name)?.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMAPS: &str = "\
55df7245d000-55df73aa8000 r--p 00000000 fe:00 1234                       /srv/plinth
Size:              22828 kB
Rss:                3904 kB
Anonymous:             0 kB
VmFlags: rd mr mw me
55df73aa8000-55df75f96000 r-xp 0164a000 fe:00 1234                       /srv/plinth
Rss:               21424 kB
Anonymous:             0 kB
55df75f96000-55df760bc000 r--p 03b37000 fe:00 1234                       /srv/plinth
Rss:                1176 kB
Anonymous:          1176 kB
55df760bc000-55df760c6000 rw-p 03c5c000 fe:00 1234                       /srv/plinth
Rss:                  40 kB
Anonymous:            40 kB
7fbca5f2e000-7fbca6084000 r-xp 00028000 fe:00 99                         /usr/lib/libc.so.6
Rss:                1224 kB
Anonymous:             0 kB
7fbca6084000-7fbca6085000 rw-p 00000000 00:00 0 
Rss:                   4 kB
Anonymous:             4 kB
";

    #[test]
    fn only_the_binarys_read_only_mappings_without_private_copies_are_released() {
        let found = releasable(SMAPS, Path::new("/srv/plinth"));
        assert_eq!(
            found,
            [
                Mapping { range: 0x55df7245d000..0x55df73aa8000, resident_bytes: 3904 * 1024 },
                Mapping { range: 0x55df73aa8000..0x55df75f96000, resident_bytes: 21424 * 1024 },
            ]
        );
    }

    #[test]
    fn a_mapping_whose_anonymous_count_is_unknown_is_kept() {
        let smaps = "1000-2000 r-xp 00000000 fe:00 1 /srv/plinth\nRss: 4 kB\n";
        assert!(releasable(smaps, Path::new("/srv/plinth")).is_empty());
        assert!(releasable(SMAPS, Path::new("/srv/other")).is_empty());
    }

    /// The test binary's own code, released while the other tests run: its
    /// resident bytes fall, and it goes on running (this test returns).
    #[cfg(target_os = "linux")]
    #[test]
    fn releasing_the_running_binary_lowers_its_resident_code() {
        let exe = std::fs::read_link("/proc/self/exe").unwrap();
        let resident = || -> u64 {
            let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
            releasable(&smaps, &exe).iter().map(|m| m.resident_bytes).sum()
        };
        let before = resident();
        let released = release_startup_code().unwrap();
        assert!(released.mappings >= 1 && released.resident_bytes > 0, "{released:?}");
        let after = resident();
        assert!(after < before, "resident code {before} bytes before, {after} after");
    }
}
