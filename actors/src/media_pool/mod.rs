//! MediaPool: the CPU-heavy image work (decode, orient, resize, encode) on a
//! fixed pool of threads (an actix `SyncArbiter`), so request threads only
//! await an answer and never decode. The queue is bounded: when every worker is
//! busy and `queue_limit` jobs wait, [`MediaPool::run`] answers
//! [`PoolError::Busy`] at once instead of growing a backlog.

mod imaging;
mod process;
mod strip;

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use actix::{Actor, Addr, Handler, Message, SyncArbiter, SyncContext};
use bytes::Bytes;

use crate::fair_share::{FairShare, Policy};

pub use imaging::{check_dimensions, ImageError, Rendered, MAX_PIXELS};
pub use process::{ProcessedImage, FAVICON_PNGS, THUMBNAIL, VARIANTS};

/// Work a pool thread does.
pub enum ImageJob {
    /// Variants, placeholder and metadata-free original of a library image.
    Library { bytes: Bytes, mime_type: String, focal: Option<(f64, f64)> },
    /// The icons of a favicon package.
    Favicon { bytes: Bytes },
    /// Panics (the tests' way into a worker's containment).
    #[cfg(test)]
    Panic,
}

pub enum ImageOutcome {
    Library { image: ProcessedImage, clean_original: Option<Vec<u8>> },
    Favicon { icons: Vec<Rendered> },
}

impl Message for ImageJob {
    type Result = Result<ImageOutcome, ImageError>;
}

struct ImageWorker;

impl Actor for ImageWorker {
    type Context = SyncContext<Self>;
}

impl Handler<ImageJob> for ImageWorker {
    type Result = Result<ImageOutcome, ImageError>;

    fn handle(&mut self, job: ImageJob, _: &mut SyncContext<Self>) -> Self::Result {
        // A panic (a codec's bug on a hostile file, say) fails this job alone:
        // uncaught, it would end the thread and shrink the pool for every site.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| process_job(job))).unwrap_or_else(|payload| {
            let message = crate::site_supervisor::panic_message(payload.as_ref());
            tracing::error!(panic = %message, "an image job panicked; it failed alone");
            Err(ImageError::Panicked(message))
        })
    }
}

fn process_job(job: ImageJob) -> Result<ImageOutcome, ImageError> {
    match job {
        ImageJob::Library { bytes, mime_type, focal } => {
            let image = process::process_image(&bytes, focal)?;
            let clean_original = strip::strip_metadata(&mime_type, &bytes, image.orientation);
            Ok(ImageOutcome::Library { image, clean_original })
        }
        ImageJob::Favicon { bytes } => Ok(ImageOutcome::Favicon { icons: process::render_favicon(&bytes)? }),
        #[cfg(test)]
        ImageJob::Panic => panic!("a codec's bug"),
    }
}

/// Puts the calling (image) thread in Linux's `SCHED_IDLE` class: it runs on
/// whatever CPU request threads leave, and a request thread that wakes up
/// takes the core from it at once, so uploads being processed do not slow
/// reads. Under sustained full load, image jobs wait (and the bounded queue
/// answers 503) rather than requests. Elsewhere this does nothing.
fn yield_to_requests() {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: pid 0 names the calling thread; the call only changes its
        // scheduling class and reports failure through its return value.
        let changed = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
        if changed != 0 {
            tracing::warn!("could not move an image worker thread to SCHED_IDLE");
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    #[error("every image worker is busy and {0} jobs are waiting")]
    Busy(usize),
    #[error(transparent)]
    Image(#[from] ImageError),
    #[error("the image worker stopped")]
    Stopped,
}

#[derive(Clone)]
pub struct MediaPool {
    workers: Addr<ImageWorker>,
    /// Jobs accepted and not yet answered (running or queued).
    pending: Arc<AtomicUsize>,
    /// Most jobs accepted at once: the workers plus the queue.
    capacity: usize,
    /// Turns at the workers, one per worker, taken in turn across tenants:
    /// the queue is the tenants' lanes, not the workers' mailbox, so one
    /// site's batch of uploads does not wait ahead of another site's one.
    turns: Arc<FairShare<u64>>,
}

/// Counts a job as pending until it is answered or abandoned.
struct Pending<'a>(&'a AtomicUsize);

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl MediaPool {
    /// `threads` workers (0 = one per core); at most `queue_limit` jobs wait
    /// beyond those running. Must be called inside an actix system.
    pub fn start(threads: usize, queue_limit: usize) -> Self {
        let threads = if threads == 0 { std::thread::available_parallelism().map_or(2, |n| n.get()) } else { threads };
        let workers = SyncArbiter::start(threads, || {
            yield_to_requests();
            ImageWorker
        });
        let turns = FairShare::new(Policy { capacity: threads, per_lane: threads, guaranteed_share: false });
        Self { workers, pending: Arc::new(AtomicUsize::new(0)), capacity: threads + queue_limit, turns }
    }

    /// Jobs accepted and not yet answered: running or waiting (for the metrics).
    pub fn pending(&self) -> usize {
        self.pending.load(Ordering::Acquire)
    }

    /// Runs `job` for `tenant` (anything that names who asked: jobs of
    /// different tenants take turns at the workers).
    pub async fn run(&self, tenant: impl Hash, job: ImageJob) -> Result<ImageOutcome, PoolError> {
        let before = self.pending.fetch_add(1, Ordering::AcqRel);
        let _pending = Pending(&self.pending);
        if before >= self.capacity {
            return Err(PoolError::Busy(before));
        }
        let mut lane = std::collections::hash_map::DefaultHasher::new();
        tenant.hash(&mut lane);
        let _turn = self.turns.acquire(lane.finish()).await;
        self.workers.send(job).await.map_err(|_| PoolError::Stopped)?.map_err(PoolError::Image)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn photo() -> Bytes {
        let (w, h) = (400u32, 300u32);
        let pixels: Vec<u8> = (0..w * h).flat_map(|i| [(i % 256) as u8, 40, 90]).collect();
        let mut out = Vec::new();
        image::codecs::jpeg::JpegEncoder::new(&mut out)
            .encode(&pixels, w, h, image::ExtendedColorType::Rgb8)
            .expect("encodes");
        Bytes::from(out)
    }

    #[actix::test]
    async fn a_full_pool_answers_busy_at_once_instead_of_queueing() {
        // One worker, no queue: a second job while the first runs is refused.
        let pool = MediaPool::start(1, 0);
        let job = || ImageJob::Library { bytes: photo(), mime_type: "image/jpeg".into(), focal: None };
        let (first, second) = futures_util::join!(pool.run("a", job()), pool.run("a", job()));
        assert!(matches!(first, Ok(ImageOutcome::Library { .. })));
        assert!(matches!(second, Err(PoolError::Busy(1))));
        // Once answered, the slot is free again.
        assert!(pool.run("a", job()).await.is_ok());
    }

    #[actix::test]
    async fn a_job_that_panics_fails_alone_and_its_worker_goes_on() {
        let pool = MediaPool::start(1, 4);
        let failed = pool.run("a", ImageJob::Panic).await;
        assert!(matches!(failed, Err(PoolError::Image(ImageError::Panicked(m))) if m == "a codec's bug"));
        let job = ImageJob::Library { bytes: photo(), mime_type: "image/jpeg".into(), focal: None };
        assert!(matches!(pool.run("b", job).await, Ok(ImageOutcome::Library { .. })), "the one worker still works");
    }
}
