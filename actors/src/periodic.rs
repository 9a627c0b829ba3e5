//! An actor that runs one task on a fixed period, never two runs at once, and on
//! demand ([`RunNow`]: waits for a run in progress, then runs, and is answered
//! when its own run has finished). The Janitor is one.

use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use futures_util::future::BoxFuture;

pub type Task = Arc<dyn Fn() -> BoxFuture<'static, ()> + Send + Sync>;

pub struct Periodic {
    name: &'static str,
    every: Duration,
    task: Task,
    /// Held while a run is in progress.
    running: Arc<tokio::sync::Mutex<()>>,
}

impl Periodic {
    pub fn new(name: &'static str, every: Duration, task: Task) -> Self {
        Self { name, every, task, running: Arc::new(tokio::sync::Mutex::new(())) }
    }
}

/// A scheduled run: skipped when the previous one is still going.
fn tick(task: Task, running: Arc<tokio::sync::Mutex<()>>) -> BoxFuture<'static, ()> {
    Box::pin(async move {
        if let Ok(_guard) = running.try_lock() {
            task().await;
        }
    })
}

/// A requested run: waits for one in progress, then runs.
fn run_now(task: Task, running: Arc<tokio::sync::Mutex<()>>) -> BoxFuture<'static, ()> {
    Box::pin(async move {
        let _guard = running.lock().await;
        task().await;
    })
}

impl Actor for Periodic {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        tracing::debug!(name = self.name, every = ?self.every, "periodic task started");
        ctx.run_interval(self.every, |actor, ctx| {
            ctx.spawn(tick(Arc::clone(&actor.task), Arc::clone(&actor.running)).into_actor(actor));
        });
    }
}

/// Runs the task now; answered when the run is done.
#[derive(Message)]
#[rtype(result = "()")]
pub struct RunNow;

impl Handler<RunNow> for Periodic {
    type Result = ResponseFuture<()>;

    fn handle(&mut self, _: RunNow, _: &mut Self::Context) -> Self::Result {
        run_now(Arc::clone(&self.task), Arc::clone(&self.running))
    }
}
