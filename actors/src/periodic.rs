//! An actor that runs one task on a fixed period, never two runs at once, and on
//! demand ([`RunNow`], answered when that run has finished). The Janitor is one.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use futures_util::future::BoxFuture;

pub type Task = Arc<dyn Fn() -> BoxFuture<'static, ()> + Send + Sync>;

pub struct Periodic {
    name: &'static str,
    every: Duration,
    task: Task,
    busy: Arc<AtomicBool>,
}

impl Periodic {
    pub fn new(name: &'static str, every: Duration, task: Task) -> Self {
        Self { name, every, task, busy: Arc::new(AtomicBool::new(false)) }
    }
}

fn run(task: Task, busy: Arc<AtomicBool>) -> BoxFuture<'static, ()> {
    Box::pin(async move {
        if busy.swap(true, Ordering::SeqCst) {
            return; // the previous run is still going
        }
        task().await;
        busy.store(false, Ordering::SeqCst);
    })
}

impl Actor for Periodic {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        tracing::debug!(name = self.name, every = ?self.every, "periodic task started");
        ctx.run_interval(self.every, |actor, ctx| {
            ctx.spawn(run(Arc::clone(&actor.task), Arc::clone(&actor.busy)).into_actor(actor));
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
        run(Arc::clone(&self.task), Arc::clone(&self.busy))
    }
}
