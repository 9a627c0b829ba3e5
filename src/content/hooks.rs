//! What the content engine asks of the families built on it. The engine sits
//! below every family (pages, blogs, documents, notifications, the trash...), so
//! it never names one: a family that adds to an item's life registers a hook
//! here, once, when the app is wired (`api::content_hooks`), and the engine
//! calls whatever is registered. A source rule keeps family paths out of
//! `src/content/`.

use std::sync::OnceLock;

use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;
use sea_orm::DatabaseTransaction;
use uuid::Uuid;

use crate::error::ApiResult;
use crate::state::AppState;

/// An item that has just entered review, told to whoever handles reviews
/// inside the transaction that moved it (so the news exists exactly when the
/// status does).
pub struct SubmittedForReview<'a> {
    pub site_ids: &'a [Uuid],
    pub entity_type: &'a str,
    pub entity_id: Uuid,
    pub title: &'a str,
    /// The submitting user, if a user submitted it.
    pub submitted_by: Option<&'a str>,
    /// When it was submitted (the app's clock).
    pub at: DateTime<Utc>,
}

/// The hooks; each family fills in its own.
#[derive(Clone, Copy)]
pub struct ContentHooks {
    /// A post's attached documents, as its detail shows them.
    pub post_attachments: for<'a> fn(&'a AppState, Uuid) -> BoxFuture<'a, ApiResult<Vec<serde_json::Value>>>,
    /// An item entered review.
    pub submitted_for_review:
        for<'a> fn(&'a DatabaseTransaction, SubmittedForReview<'a>) -> BoxFuture<'a, ApiResult<()>>,
}

impl ContentHooks {
    /// No family registered: no attachments, nobody told.
    const NONE: ContentHooks = ContentHooks {
        post_attachments: |_, _| Box::pin(async { Ok(Vec::new()) }),
        submitted_for_review: |_, _| Box::pin(async { Ok(()) }),
    };
}

static REGISTERED: OnceLock<ContentHooks> = OnceLock::new();

/// Registers the families' hooks. The hooks are plain functions, the same for
/// every app a process builds, so the first registration stands.
pub fn register(hooks: ContentHooks) {
    let _ = REGISTERED.set(hooks);
}

/// The registered hooks (none outside a wired app, as in unit tests).
pub fn hooks() -> &'static ContentHooks {
    REGISTERED.get().unwrap_or(&ContentHooks::NONE)
}
