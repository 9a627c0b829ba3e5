//! The review of submissions: lists with status counts, detail with notes and
//! status history, the status state machine ([`SubmissionStatus::may_move_to`]),
//! notes, soft delete, and the hourly retention pass.

use plinth_entities::{form, form_submission, form_submission_history, form_submission_note, form_submission_value};
use sea_orm::sea_query::{Expr, ExprTrait, Query};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, EntityTrait, FromQueryResult, QueryFilter, QueryOrder, QuerySelect, Select,
};
use serde_json::json;
use uuid::Uuid;

use super::model::{
    NoteInput, NoteResponse, StatusChange, StatusCounts, StorageMode, SubmissionDetail, SubmissionListQuery,
    SubmissionResponse, SubmissionStatus,
};
use crate::audit::{self, Action, Actor, AuditEntry};
use crate::auth::Granted;
use crate::db::{Touched, WriteTxn};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::pagination::{fetch_page, PageParams, Paginated};
use crate::state::AppState;
use crate::values::required_text;

/// The longest note.
pub const MAX_NOTE: usize = 10_000;

pub fn response(s: &form_submission::Model) -> SubmissionResponse {
    SubmissionResponse {
        id: s.id,
        form_id: s.form_id,
        site_id: s.site_id,
        reference_code: s.reference_code.clone(),
        status: s.status,
        data: s.data.clone(),
        consent_given: s.consent_given,
        created_at: s.created_at,
        updated_at: s.updated_at,
    }
}

/// A form's submissions (or those of one status), newest first
/// (`ix_form_submissions_form_time`, `ix_form_submissions_form_status`).
pub fn list_query(form_id: Uuid, status: Option<SubmissionStatus>) -> Select<form_submission::Entity> {
    let select = form_submission::Entity::find()
        .filter(form_submission::Column::FormId.eq(form_id))
        .filter(form_submission::Column::DeletedAt.is_null())
        .order_by_desc(form_submission::Column::CreatedAt)
        .order_by_desc(form_submission::Column::Id);
    match status {
        Some(status) => select.filter(form_submission::Column::Status.eq(status)),
        None => select,
    }
}

pub async fn list(
    state: &AppState,
    f: &form::Model,
    query: SubmissionListQuery,
) -> ApiResult<Paginated<SubmissionResponse>> {
    let page = PageParams { page: query.page, per_page: query.page_size.or(query.per_page) }.resolve();
    let mut select = list_query(f.id, query.status);
    match (query.field.as_deref(), query.value.as_deref()) {
        (None, None) => {}
        (Some(field), Some(value)) => {
            if StorageMode::parse(&f.storage_mode) != StorageMode::Queryable {
                return Err(ApiError::validation(vec![FieldError::new(
                    "field",
                    ErrorCode::ValidationInvalidFormat,
                    "field-value search needs a form with storage_mode queryable",
                )]));
            }
            // One indexed lookup on (form_id, field_label, value).
            let wanted: String = value.trim().to_lowercase().chars().take(super::validate::INDEXED_CHARS).collect();
            let matching = Query::select()
                .column(form_submission_value::Column::SubmissionId)
                .from(form_submission_value::Entity)
                .and_where(Expr::col(form_submission_value::Column::FormId).eq(f.id))
                .and_where(Expr::col(form_submission_value::Column::FieldLabel).eq(field))
                .and_where(Expr::col(form_submission_value::Column::Value).eq(wanted))
                .to_owned();
            select = select.filter(form_submission::Column::Id.in_subquery(matching));
        }
        _ => {
            return Err(ApiError::validation(vec![FieldError::new(
                "value",
                ErrorCode::ValidationRequiredField,
                "field and value go together",
            )]))
        }
    }
    Ok(fetch_page(&state.db, select, page).await?.map(|s| response(&s)))
}

#[derive(FromQueryResult)]
struct StatusCount {
    status: SubmissionStatus,
    count: i64,
}

/// Counts per status in one grouped query.
pub async fn counts(state: &AppState, form_id: Uuid) -> ApiResult<StatusCounts> {
    let rows = form_submission::Entity::find()
        .select_only()
        .column(form_submission::Column::Status)
        .column_as(form_submission::Column::Id.count(), "count")
        .filter(form_submission::Column::FormId.eq(form_id))
        .filter(form_submission::Column::DeletedAt.is_null())
        .group_by(form_submission::Column::Status)
        .into_model::<StatusCount>()
        .all(&state.db)
        .await?;
    let mut out = StatusCounts::default();
    for row in rows {
        let n = u64::try_from(row.count).unwrap_or(0);
        match row.status {
            SubmissionStatus::New => out.new = n,
            SubmissionStatus::InReview => out.in_review = n,
            SubmissionStatus::Resolved => out.resolved = n,
            SubmissionStatus::Archived => out.archived = n,
        }
        out.total += n;
    }
    Ok(out)
}

fn note_response(n: form_submission_note::Model) -> NoteResponse {
    NoteResponse {
        id: n.id,
        submission_id: n.submission_id,
        body: n.body,
        author: n.author.map(|a| a.to_string()),
        created_at: n.created_at,
    }
}

pub async fn detail(state: &AppState, s: &form_submission::Model) -> ApiResult<SubmissionDetail> {
    let notes = form_submission_note::Entity::find()
        .filter(form_submission_note::Column::SubmissionId.eq(s.id))
        .order_by_asc(form_submission_note::Column::CreatedAt)
        .all(&state.db)
        .await?;
    let history = form_submission_history::Entity::find()
        .filter(form_submission_history::Column::SubmissionId.eq(s.id))
        .order_by_asc(form_submission_history::Column::CreatedAt)
        .all(&state.db)
        .await?;
    Ok(SubmissionDetail {
        submission: response(s),
        notes: notes.into_iter().map(note_response).collect(),
        status_history: history
            .into_iter()
            .map(|h| StatusChange {
                from_status: h.from_status,
                to_status: h.to_status,
                actor: h.actor.map(|a| a.to_string()),
                created_at: h.created_at,
            })
            .collect(),
    })
}

fn entry<'a>(actor: &'a Actor, action: Action, s: &form_submission::Model) -> AuditEntry<'a> {
    AuditEntry { actor, action, entity_type: "form_submission", entity_id: s.id.to_string(), site_id: Some(s.site_id) }
}

pub async fn change_status(
    state: &AppState,
    granted: Granted<form_submission::Model>,
    to: SubmissionStatus,
) -> ApiResult<SubmissionDetail> {
    let (s, site) = granted.into_parts();
    let from = s.status;
    if !from.may_move_to(to) {
        return Err(ApiError::new(
            ErrorCode::InvalidStatusTransition,
            format!("a submission cannot move from {} to {}", from.as_str(), to.as_str()),
        ));
    }
    let now = state.clock.now();
    let actor = site.actor();
    audit::write(&state.db, async |txn| {
        // Only from the status read: a concurrent move makes this one a no-op, refused below.
        let moved = form_submission::Entity::update_many()
            .col_expr(form_submission::Column::Status, Expr::value(to.as_str()))
            .col_expr(form_submission::Column::UpdatedAt, Expr::value(now))
            .filter(form_submission::Column::Id.eq(s.id))
            .filter(form_submission::Column::Status.eq(from))
            .exec(txn)
            .await?;
        if moved.rows_affected == 0 {
            return Err(ApiError::new(ErrorCode::Conflict, "the submission's status changed meanwhile; read it again"));
        }
        form_submission_history::Entity::insert(form_submission_history::ActiveModel {
            id: Set(Uuid::new_v4()),
            submission_id: Set(s.id),
            from_status: Set(Some(from)),
            to_status: Set(to),
            actor: Set(Some(actor.clone())),
            created_at: Set(now),
        })
        .exec_without_returning(txn)
        .await?;
        audit::record(txn, now, entry(actor, Action::Update, &s), &json!({"status": from}), &json!({"status": to}))
            .await?;
        Ok(())
    })
    .await?;
    let mut moved = s;
    moved.status = to;
    moved.updated_at = now;
    detail(state, &moved).await
}

/// Soft-deletes `s` and drops its indexed values; `actor` is recorded when an
/// editor (not the visitor or retention) deleted it.
pub async fn soft_delete(state: &AppState, s: &form_submission::Model, actor: Option<&Actor>) -> ApiResult<()> {
    let now = state.clock.now();
    if crate::preconditions::pending() {
        // Its entry records the submission without its values; its `GET` answers them.
        crate::preconditions::compare_with(&detail(state, s).await?);
    }
    let delete = async |txn: &WriteTxn| {
        txn.touch(Touched::Answers(s.site_id)); // the form's submission lists
        let done = form_submission::Entity::update_many()
            .col_expr(form_submission::Column::DeletedAt, Expr::value(Some(now)))
            .col_expr(form_submission::Column::UpdatedAt, Expr::value(now))
            .filter(form_submission::Column::Id.eq(s.id))
            .filter(form_submission::Column::DeletedAt.is_null())
            .exec(txn)
            .await?;
        if done.rows_affected == 0 {
            // Deleted meanwhile (a second, concurrent call).
            return Err(ApiError::new(ErrorCode::SubmissionDeleted, "this submission was deleted"));
        }
        form_submission_value::Entity::delete_many()
            .filter(form_submission_value::Column::SubmissionId.eq(s.id))
            .exec(txn)
            .await?;
        Ok(())
    };
    match actor {
        Some(actor) => {
            audit::write(&state.db, async |txn| {
                delete(txn).await?;
                audit::record(txn, now, entry(actor, Action::Delete, s), &response(s), &serde_json::Value::Null)
                    .await?;
                Ok(())
            })
            .await
        }
        None => {
            let why = "a visitor's or retention's deletion: no editor acted";
            let txn = crate::db::begin_unaudited(&state.db, why).await?;
            delete(&txn).await?;
            txn.commit().await?;
            Ok(())
        }
    }
}

pub async fn add_note(
    state: &AppState,
    granted: &Granted<form_submission::Model>,
    body: NoteInput,
) -> ApiResult<NoteResponse> {
    let s = granted.row();
    let text = required_text("body", &body.body, MAX_NOTE).map_err(|e| ApiError::validation(vec![e]))?;
    let note = form_submission_note::Model {
        id: Uuid::new_v4(),
        submission_id: s.id,
        body: text,
        author: Some(granted.site().actor().clone()),
        created_at: state.clock.now(),
    };
    let insert = form_submission_note::Entity::insert(form_submission_note::ActiveModel::from(note.clone()));
    let touched = [Touched::Answers(s.site_id)];
    state.db.write(&touched, async |txn| insert.exec_without_returning(txn).await).await?;
    Ok(note_response(note))
}

pub async fn delete_note(state: &AppState, s: &form_submission::Model, note_id: Uuid) -> ApiResult<()> {
    let delete = form_submission_note::Entity::delete_many()
        .filter(form_submission_note::Column::Id.eq(note_id))
        .filter(form_submission_note::Column::SubmissionId.eq(s.id));
    let touched = [Touched::Answers(s.site_id)];
    let done = state.db.write(&touched, async |txn| delete.exec(txn).await).await?;
    if done.rows_affected == 0 {
        return Err(ApiError::not_found("form_submission_note", note_id));
    }
    Ok(())
}

/// The hourly retention pass: soft-deletes submissions older than their
/// form's `retention_days` (null or 0 keeps them), in one statement per form.
pub async fn apply_retention(state: &AppState) -> ApiResult<u64> {
    let now = state.clock.now();
    let forms = form::Entity::find().filter(form::Column::RetentionDays.gt(0)).all(&state.db).await?;
    let mut deleted = 0;
    for f in forms {
        let cutoff = now - chrono::Duration::days(i64::from(f.retention_days.unwrap_or(0)));
        let expired = Query::select()
            .column(form_submission::Column::Id)
            .from(form_submission::Entity)
            .and_where(Expr::col(form_submission::Column::FormId).eq(f.id))
            .and_where(Expr::col(form_submission::Column::DeletedAt).is_null())
            .and_where(Expr::col(form_submission::Column::CreatedAt).lt(cutoff))
            .to_owned();
        let txn =
            crate::db::begin_unaudited(&state.db, "retention's expiry: the form's rule, not a person's act").await?;
        txn.touch(Touched::Answers(f.site_id)); // the form's submission lists
        form_submission_value::Entity::delete_many()
            .filter(form_submission_value::Column::SubmissionId.in_subquery(expired))
            .exec(&*txn)
            .await?;
        let done = form_submission::Entity::update_many()
            .col_expr(form_submission::Column::DeletedAt, Expr::value(Some(now)))
            .filter(form_submission::Column::FormId.eq(f.id))
            .filter(form_submission::Column::DeletedAt.is_null())
            .filter(form_submission::Column::CreatedAt.lt(cutoff))
            .exec(&*txn)
            .await?;
        txn.commit().await?;
        deleted += done.rows_affected;
    }
    Ok(deleted)
}
