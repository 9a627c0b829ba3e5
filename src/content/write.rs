//! Content writes: create, update, delete, clone, review, bulk. Each runs in one
//! transaction with its audit entry; events go out after the commit.

use chrono::{DateTime, Utc};
use plinth_entities::{content, content_category, content_localization, content_site, content_tag};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait, QueryFilter,
};
use serde_json::{json, Value};
use uuid::Uuid;

use super::access::{check_status_move, require_may_edit, require_module, role_on_all};
use super::model::{
    BulkAction, BulkRequest, BulkResult, ContentResponse, CreateContent, KindInput, ReviewAction, ReviewRequest,
    UpdateContent,
};
use super::relations::{self, status_of};
use super::slug::{available_slug, slugify};
use super::{validate, ContentKind, ContentStatus};
use crate::app::AppState;
use crate::audit::{self, Action, AuditEntry};
use crate::auth::{Capability, Principal, Role};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode};
use crate::events::DomainEvent;
use crate::notifications;
use crate::values::{required_text, Slug};

/// An item's relations as they will be stored; `None` leaves a set untouched.
struct Draft {
    site_ids: Vec<Uuid>,
    slug: String,
    route: Option<String>,
    category_ids: Option<Vec<Uuid>>,
    primary_category_id: Option<Uuid>,
    tag_ids: Option<Vec<Uuid>>,
}

fn audit_entry(actor: &str, action: Action, kind: ContentKind, id: Uuid, site_id: Option<Uuid>) -> AuditEntry<'_> {
    AuditEntry { actor, action, entity_type: kind.as_str(), entity_id: id.to_string(), site_id }
}

/// When an item enters review, its sites' reviewers are told (in the same transaction).
/// `(from, to, at)`: the status move and when it happened.
async fn notify_if_submitted(
    txn: &DatabaseTransaction,
    principal: &Principal,
    kind: ContentKind,
    (from, to, at): (ContentStatus, ContentStatus, DateTime<Utc>),
    id: Uuid,
    title: &str,
    site_ids: &[Uuid],
) -> ApiResult<()> {
    if to != ContentStatus::InReview || from == ContentStatus::InReview {
        return Ok(());
    }
    let request = notifications::ReviewRequest {
        site_ids,
        entity_type: kind.as_str(),
        entity_id: id,
        title,
        submitted_by: principal.user().map(|u| u.idp_user_id.as_str()),
        at,
    };
    notifications::notify_reviewers(txn, request).await
}

/// Whether the editorial workflow is on for any of the sites.
async fn workflow_enabled(state: &AppState, site_ids: &[Uuid]) -> ApiResult<bool> {
    for site_id in site_ids {
        if state.site_state(*site_id).await?.settings.editorial_workflow_enabled {
            return Ok(true);
        }
    }
    Ok(false)
}

pub(super) async fn load_live<C: ConnectionTrait>(db: &C, kind: ContentKind, id: Uuid) -> ApiResult<content::Model> {
    content::Entity::find_by_id(id)
        .filter(content::Column::Kind.eq(kind.as_str()))
        .filter(content::Column::IsDeleted.eq(false))
        .one(db)
        .await?
        .ok_or_else(|| ApiError::not_found(kind.as_str(), id))
}

/// An existing item, its relations and the caller's role on all its sites, with
/// the module checked: read through the pool, before any write transaction.
async fn checked_item(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    id: Uuid,
) -> ApiResult<(content::Model, relations::Relations, Role)> {
    let current = load_live(&state.db, kind, id).await?;
    let rel = relations::load(&state.db, &[id], true).await?.remove(&id).unwrap_or_default();
    let role = role_on_all(state, principal, &rel.site_ids).await?;
    require_module(state, kind, &rel.site_ids).await?;
    Ok((current, rel, role))
}

/// Inside a write transaction: the item as it was checked before the
/// transaction began, or 409 CONFLICT when another request changed it since.
async fn still_unchanged(
    txn: &DatabaseTransaction,
    kind: ContentKind,
    checked: &content::Model,
) -> ApiResult<content::Model> {
    let current = load_live(txn, kind, checked.id).await?;
    if current.updated_at != checked.updated_at {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            format!("the {} changed while this request ran; retry", kind.as_str()),
        ));
    }
    Ok(current)
}

fn slug_taken_error(kind: ContentKind, slug: &str) -> ApiError {
    ApiError::slug_taken(kind.as_str(), slug)
}

fn route_taken_error(route: &str) -> ApiError {
    ApiError::entity(ErrorCode::EntitySlugTaken, "page", format!("the route '{route}' is already used by another page"))
}

/// Writes the item's site rows (slug, route), categories and tags.
async fn store_relations(
    txn: &DatabaseTransaction,
    kind: ContentKind,
    id: Uuid,
    draft: &Draft,
    replace_sites: bool,
) -> ApiResult<()> {
    if replace_sites {
        content_site::Entity::delete_many().filter(content_site::Column::ContentId.eq(id)).exec(txn).await?;
        for site_id in &draft.site_ids {
            content_site::ActiveModel {
                content_id: Set(id),
                site_id: Set(*site_id),
                kind: Set(kind.as_str().to_string()),
                slug: Set(draft.slug.clone()),
                route: Set(draft.route.clone()),
            }
            .insert(txn)
            .await
            .map_err(on_constraint(Constraint::Unique, || match &draft.route {
                Some(route) => route_taken_error(route),
                None => slug_taken_error(kind, &draft.slug),
            }))?;
        }
    }
    if let Some(category_ids) = &draft.category_ids {
        content_category::Entity::delete_many().filter(content_category::Column::ContentId.eq(id)).exec(txn).await?;
        for category_id in category_ids {
            content_category::ActiveModel {
                content_id: Set(id),
                category_id: Set(*category_id),
                is_primary: Set(draft.primary_category_id == Some(*category_id)),
            }
            .insert(txn)
            .await?;
        }
    }
    if let Some(tag_ids) = &draft.tag_ids {
        content_tag::Entity::delete_many().filter(content_tag::Column::ContentId.eq(id)).exec(txn).await?;
        for tag_id in tag_ids {
            content_tag::ActiveModel { content_id: Set(id), tag_id: Set(*tag_id) }.insert(txn).await?;
        }
    }
    Ok(())
}

/// `<kind>.<what>` for every site of the item.
pub(crate) fn events_for(
    kind: ContentKind,
    what: &str,
    item: &ContentResponse,
    now: DateTime<Utc>,
) -> Vec<DomainEvent> {
    let Some(prefix) = kind.event_prefix() else { return Vec::new() };
    let data = json!({"id": item.id, "title": item.title, "slug": item.slug, "status": item.status});
    item.site_ids
        .iter()
        .map(|site_id| DomainEvent {
            event: format!("{prefix}.{what}"),
            timestamp: now,
            site_id: *site_id,
            data: data.clone(),
        })
        .collect()
}

/// A change of an item whose status was `before`: updated, plus published when
/// it went live.
pub(crate) fn change_events(
    kind: ContentKind,
    before: ContentStatus,
    after: &ContentResponse,
    now: DateTime<Utc>,
) -> Vec<DomainEvent> {
    let mut events = events_for(kind, "updated", after, now);
    if after.status == ContentStatus::Published && before != ContentStatus::Published {
        events.extend(events_for(kind, "published", after, now));
    }
    events
}

pub(crate) fn created_events(kind: ContentKind, created: &ContentResponse, now: DateTime<Utc>) -> Vec<DomainEvent> {
    let mut events = events_for(kind, "created", created, now);
    if created.status == ContentStatus::Published {
        events.extend(events_for(kind, "published", created, now));
    }
    events
}

/// Stores the events in the outbox with the change, commits, then drops the
/// sites' cached state (published lists, feeds) and announces the events.
pub(crate) async fn commit_with_events(
    state: &AppState,
    txn: DatabaseTransaction,
    events: Vec<DomainEvent>,
) -> ApiResult<()> {
    crate::events::store(&txn, &events).await?;
    txn.commit().await?;
    let mut sites: Vec<Uuid> = events.iter().map(|e| e.site_id).collect();
    sites.sort();
    sites.dedup();
    for site_id in sites {
        state.invalidate_site(site_id);
    }
    state.events.announce(&events);
    Ok(())
}

/// After a status move: when it went live, and the publish timestamp to keep.
fn published_at(
    to: ContentStatus,
    from: ContentStatus,
    current: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    if to == ContentStatus::Published && from != ContentStatus::Published {
        Some(now)
    } else {
        current
    }
}

/// The item as stored now, audited against `before`. The caller commits.
async fn audited(
    txn: &DatabaseTransaction,
    at: DateTime<Utc>,
    id: Uuid,
    entry: AuditEntry<'_>,
    before: &impl serde::Serialize,
) -> ApiResult<ContentResponse> {
    let model =
        content::Entity::find_by_id(id).one(txn).await?.ok_or_else(|| ApiError::internal("content vanished"))?;
    let relations = relations::load(txn, &[id], true).await?.remove(&id).unwrap_or_default();
    let response = relations::response(&model, relations);
    audit::record(txn, at, entry, before, &response).await?;
    Ok(response)
}

pub async fn create(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    body: CreateContent,
) -> ApiResult<ContentResponse> {
    let checked = check_new(state, principal, kind, body).await?;
    let generated = checked.explicit_slug.is_none() && checked.route.is_none();
    retry_lost_slug_race(generated, || async {
        let txn = crate::db::begin_write(&state.db).await?;
        let id = insert(&txn, principal, kind, checked.clone(), false).await?;
        let created = audit_created(&txn, state.clock.now(), principal, kind, id).await?;
        commit_with_events(state, txn, created_events(kind, &created, state.clock.now())).await?;
        Ok(created)
    })
    .await
}

/// How often a write with a generated slug starts again after losing a race.
const SLUG_RACE_RETRIES: usize = 32;

/// Runs `attempt` (one whole write transaction) again when a generated slug or
/// route was taken between our free-slug query and the insert: on PostgreSQL two
/// concurrent writers can both see `title` free, and the unique index lets one
/// win. The next attempt's query sees the winner and takes the next suffix. An
/// explicit slug is the caller's choice and answers 409 at once.
pub(crate) async fn retry_lost_slug_race<T, F, Fut>(generated: bool, mut attempt: F) -> ApiResult<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ApiResult<T>>,
{
    let mut tries = 0;
    loop {
        match attempt().await {
            Err(e) if generated && e.code() == ErrorCode::EntitySlugTaken && tries < SLUG_RACE_RETRIES => tries += 1,
            other => return other,
        }
    }
}

/// Audits a created item and answers with it. The caller commits.
pub(crate) async fn audit_created(
    txn: &DatabaseTransaction,
    at: DateTime<Utc>,
    principal: &Principal,
    kind: ContentKind,
    id: Uuid,
) -> ApiResult<ContentResponse> {
    let actor = principal.actor_id();
    let entry = audit_entry(&actor, Action::Create, kind, id, None);
    audited(txn, at, id, entry, &()).await
}

/// A new item that passed every check that needs cached site state or
/// memberships; [`insert`] stores it.
#[derive(Clone)]
pub(crate) struct CheckedNew {
    body: CreateContent,
    /// The kind's own fields as stored, and the subtype.
    kind_fields: (Value, Option<String>),
    title: String,
    explicit_slug: Option<Slug>,
    route: Option<String>,
    status: ContentStatus,
    now: DateTime<Utc>,
}

/// A title as given. Optional: the spec's create bodies name none, so an item may
/// start untitled (a legal document cannot be published so).
fn item_title(raw: &str) -> Result<String, crate::error::FieldError> {
    if raw.trim().is_empty() {
        return Ok(String::new());
    }
    required_text("title", raw, validate::TITLE_MAX)
}

/// Validation, permissions, module and workflow checks for a new item. They read
/// through the pool, so they run before the write transaction: a transaction
/// holding SQLite's write lock must never wait for another pooled connection.
pub(crate) async fn check_new(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    body: CreateContent,
) -> ApiResult<CheckedNew> {
    let mut errors = Vec::new();
    validate::site_ids("site_ids", &body.site_ids, &mut errors);
    let title = item_title(&body.title).map_err(|e| errors.push(e)).ok();
    let explicit_slug = body.slug.as_deref().and_then(|s| Slug::parse("slug", s).map_err(|e| errors.push(e)).ok());
    let route = body.route.as_deref().and_then(|r| validate::route(r).map_err(|e| errors.push(e)).ok());
    let kind_fields = match validate::kind_data(kind, body.route.is_some(), &KindInput::from(&body), None) {
        Ok(data) => Some(data),
        Err(kind_errors) => {
            errors.extend(kind_errors);
            None
        }
    };
    let (Some(title), Some(kind_fields), true) = (title, kind_fields, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let role = role_on_all(state, principal, &body.site_ids).await?;
    role.ensure(Capability::CreateContent, &format!("creating a {}", kind.as_str()))?;
    require_module(state, kind, &body.site_ids).await?;
    let status = body.status.unwrap_or(if kind.published_by_default() {
        ContentStatus::Published
    } else {
        ContentStatus::Draft
    });
    if !kind.published_by_default() {
        check_status_move(role, workflow_enabled(state, &body.site_ids).await?, ContentStatus::Draft, status)?;
    }
    let now = state.clock.now();
    validate::publish_window(body.publish_start, body.publish_end)?;
    validate::schedule(status, body.publish_start, now)?;
    if status.is_publishing() {
        validate::publishable(kind, &title, &body.body)?;
    }
    Ok(CheckedNew { body, kind_fields, title, explicit_slug, route, status, now })
}

/// Stores a checked new item inside `txn`; returns its id.
pub(crate) async fn insert(
    txn: &DatabaseTransaction,
    principal: &Principal,
    kind: ContentKind,
    checked: CheckedNew,
    is_sample: bool,
) -> ApiResult<Uuid> {
    let CheckedNew { body, kind_fields: (fields, subtype), title, explicit_slug, route, status, now } = checked;
    let title_for_notice = title.clone();
    validate::taxonomy(txn, &body.site_ids, &body.category_ids, body.primary_category_id, &body.tag_ids).await?;
    let slug = match explicit_slug {
        Some(slug) => {
            if validate::slug_taken(txn, kind, &body.site_ids, slug.as_str(), None).await? {
                return Err(slug_taken_error(kind, slug.as_str()));
            }
            slug.into_inner()
        }
        None => {
            // An untitled legal document is named by its type; anything else
            // untitled is `untitled`, `untitled-2`, …
            let base = match (title.is_empty(), kind) {
                (true, ContentKind::Legal) => subtype.clone().unwrap_or_default(),
                (true, _) => String::new(),
                (false, _) => title.clone(),
            };
            available_slug(txn, kind, &body.site_ids, &slugify(&base), None, ErrorCode::ContentSlugGenerationFailed)
                .await?
        }
    };
    let route = match (kind, route) {
        (ContentKind::Page, Some(route)) => {
            if validate::route_taken(txn, &body.site_ids, &route, None).await? {
                return Err(route_taken_error(&route));
            }
            Some(route)
        }
        (ContentKind::Page, None) => Some(format!("/{slug}")),
        _ => None,
    };
    let id = Uuid::new_v4();
    content::ActiveModel {
        id: Set(id),
        kind: Set(kind.as_str().to_string()),
        subtype: Set(subtype),
        slug: Set(slug.clone()),
        title: Set(title),
        excerpt: Set(body.excerpt),
        body: Set(body.body),
        status: Set(status.as_str().to_string()),
        author: Set(body.author),
        created_by: Set(Some(principal.actor_id())),
        publish_start: Set(body.publish_start),
        publish_end: Set(body.publish_end),
        published_at: Set(body.published_date.or(published_at(status, ContentStatus::Draft, None, now))),
        cover_image_id: Set(body.cover_image_id),
        header_image_id: Set(body.header_image_id),
        is_featured: Set(body.is_featured),
        is_sample: Set(is_sample),
        fields: Set(fields),
        created_at: Set(now),
        updated_at: Set(now),
        deleted_at: Set(None),
        is_deleted: Set(false),
    }
    .insert(txn)
    .await?;
    let draft = Draft {
        site_ids: body.site_ids,
        slug,
        route,
        category_ids: Some(body.category_ids),
        primary_category_id: body.primary_category_id,
        tag_ids: Some(body.tag_ids),
    };
    store_relations(txn, kind, id, &draft, true).await?;
    notify_if_submitted(
        txn,
        principal,
        kind,
        (ContentStatus::Draft, status, now),
        id,
        &title_for_notice,
        &draft.site_ids,
    )
    .await?;
    Ok(id)
}

pub async fn update(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    id: Uuid,
    body: UpdateContent,
) -> ApiResult<ContentResponse> {
    let mut errors = Vec::new();
    if let Some(ids) = &body.site_ids {
        validate::site_ids("site_ids", ids, &mut errors);
    }
    let title = body.title.as_deref().and_then(|t| item_title(t).map_err(|e| errors.push(e)).ok());
    let explicit_slug = body.slug.as_deref().and_then(|s| Slug::parse("slug", s).map_err(|e| errors.push(e)).ok());
    let route = body.route.as_deref().and_then(|r| validate::route(r).map_err(|e| errors.push(e)).ok());
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }

    // Checks read through the pool: before the write transaction (see `check_new`).
    let current = load_live(&state.db, kind, id).await?;
    let (fields, subtype) =
        validate::kind_data(kind, body.route.is_some(), &KindInput::from(&body), Some(&current.fields))
            .map_err(ApiError::validation)?;
    let rel = relations::load(&state.db, &[id], true).await?.remove(&id).unwrap_or_default();
    let before = relations::response(&current, rel.clone());
    let mut new_sites = body.site_ids.clone().unwrap_or_else(|| rel.site_ids.clone());
    new_sites.sort(); // as stored, so an unchanged set compares equal
    let mut touched_sites = rel.site_ids.clone();
    touched_sites.extend(new_sites.iter().filter(|s| !rel.site_ids.contains(s)));
    let role = role_on_all(state, principal, &touched_sites).await?;
    require_module(state, kind, &new_sites).await?;
    let from = status_of(&current);
    let is_own = current.created_by.as_deref() == Some(principal.actor_id().as_str());
    // Reviewers move others' items between statuses; any other change is an edit.
    if !(body.is_status_only() && role.has(Capability::ReviewContent)) {
        require_may_edit(role, is_own, from, kind)?;
    }
    let to = body.status.unwrap_or(from);
    check_status_move(role, workflow_enabled(state, &new_sites).await?, from, to)?;
    if to.is_publishing() {
        let title = title.as_deref().unwrap_or(&current.title);
        validate::publishable(kind, title, body.body.as_deref().unwrap_or(&current.body))?;
    }
    let txn = crate::db::begin_write(&state.db).await?;
    still_unchanged(&txn, kind, &current).await?;

    let now = state.clock.now();
    let publish_start = body.publish_start.unwrap_or(current.publish_start);
    let publish_end = body.publish_end.unwrap_or(current.publish_end);
    validate::publish_window(publish_start, publish_end)?;
    if to != from || body.publish_start.is_some() {
        validate::schedule(to, publish_start, now)?;
    }
    let category_ids = body.category_ids.clone().unwrap_or_else(|| rel.category_ids.clone());
    let primary = body.primary_category_id.unwrap_or(rel.primary_category_id);
    let tag_ids = body.tag_ids.clone().unwrap_or_else(|| rel.tag_ids.clone());
    validate::taxonomy(&txn, &new_sites, &category_ids, primary, &tag_ids).await?;

    let slug = explicit_slug.map(Slug::into_inner).unwrap_or_else(|| current.slug.clone());
    let route = if kind == ContentKind::Page { route.or_else(|| rel.route.clone()) } else { None };
    let sites_changed = new_sites != rel.site_ids || slug != current.slug || route != rel.route;
    if sites_changed {
        if validate::slug_taken(&txn, kind, &new_sites, &slug, Some(id)).await? {
            return Err(slug_taken_error(kind, &slug));
        }
        if let Some(route) = &route {
            if validate::route_taken(&txn, &new_sites, route, Some(id)).await? {
                return Err(route_taken_error(route));
            }
        }
    }

    let mut row: content::ActiveModel = current.clone().into();
    if let Some(title) = title {
        row.title = Set(title);
    }
    row.slug = Set(slug.clone());
    if let Some(excerpt) = body.excerpt {
        row.excerpt = Set(excerpt);
    }
    if let Some(text) = body.body {
        row.body = Set(text);
    }
    if let Some(author) = body.author {
        row.author = Set(author);
    }
    row.status = Set(to.as_str().to_string());
    row.publish_start = Set(publish_start);
    row.publish_end = Set(publish_end);
    row.published_at = Set(body.published_date.or(published_at(to, from, current.published_at, now)));
    if let Some(cover) = body.cover_image_id {
        row.cover_image_id = Set(cover);
    }
    if let Some(header) = body.header_image_id {
        row.header_image_id = Set(header);
    }
    if let Some(featured) = body.is_featured {
        row.is_featured = Set(featured);
    }
    row.fields = Set(fields);
    row.subtype = Set(subtype);
    row.updated_at = Set(now);
    row.update(&txn).await?;
    // A new primary category alone also rewrites the category rows.
    let categories_changed = body.category_ids.is_some() || body.primary_category_id.is_some();
    let draft = Draft {
        site_ids: new_sites,
        slug,
        route,
        category_ids: categories_changed.then_some(category_ids),
        primary_category_id: primary,
        tag_ids: body.tag_ids.is_some().then_some(tag_ids),
    };
    store_relations(&txn, kind, id, &draft, sites_changed).await?;
    let title = body.title.as_deref().unwrap_or(&current.title);
    notify_if_submitted(&txn, principal, kind, (from, to, now), id, title, &draft.site_ids).await?;
    let actor = principal.actor_id();
    let entry = audit_entry(&actor, Action::Update, kind, id, draft.site_ids.first().copied());
    let updated = audited(&txn, now, id, entry, &before).await?;
    commit_with_events(state, txn, change_events(kind, from, &updated, now)).await?;
    Ok(updated)
}

/// Soft delete: the item leaves listings and appears in the trash.
pub async fn delete(state: &AppState, principal: &Principal, kind: ContentKind, id: Uuid) -> ApiResult<()> {
    let (current, rel, role) = checked_item(state, principal, kind, id).await?;
    let is_own = current.created_by.as_deref() == Some(principal.actor_id().as_str());
    role.ensure(Capability::CreateContent, &format!("deleting a {}", kind.as_str()))?;
    if !role.has(Capability::EditAnyContent) && !is_own {
        return Err(ApiError::new(
            ErrorCode::AuthInsufficientRole,
            format!("authors may only delete their own {}s", kind.as_str()),
        ));
    }
    let before = relations::response(&current, rel);
    let now = state.clock.now();
    let txn = crate::db::begin_write(&state.db).await?;
    let current = still_unchanged(&txn, kind, &current).await?;
    let mut row: content::ActiveModel = current.into();
    row.is_deleted = Set(true);
    row.deleted_at = Set(Some(now));
    row.update(&txn).await?;
    let actor = principal.actor_id();
    let entry = audit_entry(&actor, Action::Delete, kind, id, before.site_ids.first().copied());
    audit::record(&txn, now, entry, &before, &json!({"is_deleted": true, "deleted_at": now})).await?;
    commit_with_events(state, txn, events_for(kind, "deleted", &before, state.clock.now())).await?;
    Ok(())
}

/// Soft-deletes items (already checked by the caller) with an audit entry each;
/// returns them as they were, for the `deleted` events after commit.
pub(crate) async fn soft_delete_many(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    principal: &Principal,
    kind: ContentKind,
    ids: &[Uuid],
) -> ApiResult<Vec<ContentResponse>> {
    let models = content::Entity::find().filter(content::Column::Id.is_in(ids.to_vec())).all(txn).await?;
    let mut rels = relations::load(txn, ids, true).await?;
    content::Entity::update_many()
        .col_expr(content::Column::IsDeleted, sea_orm::sea_query::Expr::value(true))
        .col_expr(content::Column::DeletedAt, sea_orm::sea_query::Expr::value(now))
        .filter(content::Column::Id.is_in(ids.to_vec()))
        .exec(txn)
        .await?;
    let actor = principal.actor_id();
    let mut out = Vec::new();
    for model in &models {
        let item = relations::response(model, rels.remove(&model.id).unwrap_or_default());
        let entry = audit_entry(&actor, Action::Delete, kind, model.id, item.site_ids.first().copied());
        audit::record(txn, now, entry, &item, &json!({"is_deleted": true, "deleted_at": now})).await?;
        out.push(item);
    }
    Ok(out)
}

/// What a copy of an item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CopyAs {
    /// A Draft duplicate: `Title (copy)`, slug `…-copy`.
    Duplicate,
    /// The next version of a legal document: same title, slug `…-v{n}`,
    /// `version` = n and `previous_version_id` = the source.
    NextVersion,
}

/// A new Draft copy with its localizations and taxonomy; slug (and route) get the
/// next free `-copy`, `-copy-2`, … suffix.
pub async fn clone(state: &AppState, principal: &Principal, kind: ContentKind, id: Uuid) -> ApiResult<ContentResponse> {
    copy_item(state, principal, kind, id, CopyAs::Duplicate).await
}

/// A new Draft version of a legal document (LEGAL_VERSION_SOURCE_DELETED when the
/// source is in the trash).
pub async fn new_version(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    id: Uuid,
) -> ApiResult<ContentResponse> {
    let deleted = content::Entity::find_by_id(id)
        .filter(content::Column::Kind.eq(kind.as_str()))
        .filter(content::Column::IsDeleted.eq(true))
        .one(&state.db)
        .await?;
    if deleted.is_some() {
        return Err(ApiError::new(
            ErrorCode::LegalVersionSourceDeleted,
            "the source document is deleted; restore it first",
        ));
    }
    copy_item(state, principal, kind, id, CopyAs::NextVersion).await
}

/// `privacy-v3` → `privacy`
fn without_version_suffix(slug: &str) -> &str {
    match slug.rsplit_once("-v") {
        Some((base, n)) if !base.is_empty() && !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => base,
        _ => slug,
    }
}

async fn copy_item(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    id: Uuid,
    copy_as: CopyAs,
) -> ApiResult<ContentResponse> {
    let (source, rel, role) = checked_item(state, principal, kind, id).await?;
    role.ensure(Capability::CreateContent, &format!("copying a {}", kind.as_str()))?;
    if copy_as == CopyAs::NextVersion && kind != ContentKind::Legal {
        return Err(ApiError::bad_request("only legal documents have versions"));
    }
    // Copies always take generated slugs and routes.
    retry_lost_slug_race(true, || async {
        let txn = crate::db::begin_write(&state.db).await?;
        let source = still_unchanged(&txn, kind, &source).await?;
        let (title, slug_base, fields) = match copy_as {
            CopyAs::Duplicate => (
                format!("{} (copy)", source.title).chars().take(validate::TITLE_MAX).collect::<String>(),
                format!("{}-copy", source.slug),
                source.fields.clone(),
            ),
            CopyAs::NextVersion => {
                let version = source.fields.get("version").and_then(Value::as_i64).unwrap_or(1) + 1;
                let mut fields = source.fields.clone();
                if let Some(map) = fields.as_object_mut() {
                    map.insert("version".into(), json!(version));
                    map.insert("previous_version_id".into(), json!(source.id));
                }
                (source.title.clone(), format!("{}-v{version}", without_version_suffix(&source.slug)), fields)
            }
        };
        let slug =
            available_slug(&txn, kind, &rel.site_ids, &slug_base, None, ErrorCode::ContentSlugGenerationFailed).await?;
        let route = match &rel.route {
            Some(route) => {
                Some(available_route(&txn, &rel.site_ids, &format!("{}-copy", route.trim_end_matches('/'))).await?)
            }
            None => None,
        };
        let now = state.clock.now();
        let new_id = Uuid::new_v4();
        let mut row: content::ActiveModel = source.clone().into();
        row.id = Set(new_id);
        row.slug = Set(slug.clone());
        row.title = Set(title);
        row.fields = Set(fields);
        row.status = Set(ContentStatus::Draft.as_str().to_string());
        row.created_by = Set(Some(principal.actor_id()));
        row.published_at = Set(None);
        row.is_featured = Set(false);
        row.is_sample = Set(false);
        row.created_at = Set(now);
        row.updated_at = Set(now);
        let row = row.reset_all();
        row.insert(&txn).await?;
        let draft = Draft {
            site_ids: rel.site_ids.clone(),
            slug,
            route,
            category_ids: Some(rel.category_ids.clone()),
            primary_category_id: rel.primary_category_id,
            tag_ids: Some(rel.tag_ids.clone()),
        };
        store_relations(&txn, kind, new_id, &draft, true).await?;
        let localizations = content_localization::Entity::find()
            .filter(content_localization::Column::ContentId.eq(id))
            .all(&txn)
            .await?;
        for loc in localizations {
            let mut copy: content_localization::ActiveModel = loc.into();
            copy.id = Set(Uuid::new_v4());
            copy.content_id = Set(new_id);
            copy.created_at = Set(now);
            copy.updated_at = Set(now);
            copy.reset_all().insert(&txn).await?;
        }
        let actor = principal.actor_id();
        let entry = audit_entry(&actor, Action::Create, kind, new_id, draft.site_ids.first().copied());
        let created = audited(&txn, now, new_id, entry, &json!({"copied_from": id})).await?;
        commit_with_events(state, txn, created_events(kind, &created, state.clock.now())).await?;
        Ok(created)
    })
    .await
}

/// The first of `base`, `base-2`, … not used as a page route on any of the sites.
async fn available_route<C: ConnectionTrait>(db: &C, site_ids: &[Uuid], base: &str) -> ApiResult<String> {
    for n in 1..=super::slug::MAX_SLUG_ATTEMPTS {
        let candidate = if n == 1 { base.to_string() } else { format!("{base}-{n}") };
        if !validate::route_taken(db, site_ids, &candidate, None).await? {
            return Ok(candidate);
        }
    }
    Err(ApiError::new(ErrorCode::ContentRouteGenerationFailed, format!("no free route for '{base}'")))
}

/// Approve (publish, or schedule when `publish_start` lies ahead) or send back.
pub async fn review(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    id: Uuid,
    body: ReviewRequest,
) -> ApiResult<ContentResponse> {
    let (current, rel, role) = checked_item(state, principal, kind, id).await?;
    role.ensure(Capability::ReviewContent, &format!("reviewing a {}", kind.as_str()))?;
    let txn = crate::db::begin_write(&state.db).await?;
    let current = still_unchanged(&txn, kind, &current).await?;
    let from = status_of(&current);
    if from != ContentStatus::InReview {
        return Err(ApiError::new(
            ErrorCode::ContentReviewInvalidStatus,
            format!("only content in review can be reviewed; this is {}", from.as_str()),
        ));
    }
    let now = state.clock.now();
    if body.action == ReviewAction::Approve {
        validate::publishable(kind, &current.title, &current.body)?;
    }
    let to = match body.action {
        ReviewAction::Approve if current.publish_start.is_some_and(|s| s > now) => ContentStatus::Scheduled,
        ReviewAction::Approve => ContentStatus::Published,
        ReviewAction::RequestChanges => ContentStatus::Draft,
    };
    let before = relations::response(&current, rel);
    let published = published_at(to, from, current.published_at, now);
    let mut row: content::ActiveModel = current.into();
    row.status = Set(to.as_str().to_string());
    row.published_at = Set(published);
    row.updated_at = Set(now);
    row.update(&txn).await?;
    let actor = principal.actor_id();
    let entry = audit_entry(&actor, Action::Update, kind, id, before.site_ids.first().copied());
    let reviewed = audited(&txn, now, id, entry, &before).await?;
    commit_with_events(state, txn, change_events(kind, from, &reviewed, now)).await?;
    if let Some(comment) = body.comment.filter(|c| !c.trim().is_empty()) {
        tracing::info!(%id, action = ?body.action, %comment, "review comment");
    }
    Ok(reviewed)
}

/// One action on many items of one site, all or nothing.
pub async fn bulk(
    state: &AppState,
    principal: &Principal,
    kind: ContentKind,
    site_id: Uuid,
    body: BulkRequest,
) -> ApiResult<BulkResult> {
    let role = principal.site_role(state, site_id).await?;
    require_module(state, kind, &[site_id]).await?;
    let status = match body.action {
        BulkAction::UpdateStatus => {
            role.ensure(Capability::CreateContent, "changing status")?;
            Some(body.status.ok_or_else(|| ApiError::new(kind.bulk_status_required(), "UpdateStatus needs a status"))?)
        }
        BulkAction::Delete => {
            role.ensure(Capability::EditAnyContent, "deleting in bulk")?;
            None
        }
    };
    let workflow = workflow_enabled(state, &[site_id]).await?;
    let txn = crate::db::begin_write(&state.db).await?;
    let items = content::Entity::find()
        .filter(content::Column::Id.is_in(body.ids.clone()))
        .filter(content::Column::Kind.eq(kind.as_str()))
        .filter(content::Column::IsDeleted.eq(false))
        .all(&txn)
        .await?;
    let on_site: std::collections::HashSet<Uuid> = content_site::Entity::find()
        .filter(content_site::Column::SiteId.eq(site_id))
        .filter(content_site::Column::ContentId.is_in(body.ids.clone()))
        .all(&txn)
        .await?
        .into_iter()
        .map(|r| r.content_id)
        .collect();
    if let Some(missing) = body.ids.iter().find(|id| !on_site.contains(id) || !items.iter().any(|m| m.id == **id)) {
        return Err(ApiError::not_found(kind.as_str(), missing));
    }
    let now = state.clock.now();
    let actor = principal.actor_id();
    let mut changed = Vec::new();
    for item in items {
        let from = status_of(&item);
        let is_own = item.created_by.as_deref() == Some(actor.as_str());
        let mut row: content::ActiveModel = item.clone().into();
        match status {
            Some(to) => {
                require_may_edit(role, is_own, from, kind)?;
                check_status_move(role, workflow, from, to)?;
                if to.is_publishing() {
                    validate::publishable(kind, &item.title, &item.body)?;
                }
                if from != to {
                    validate::schedule(to, item.publish_start, now)?;
                }
                row.status = Set(to.as_str().to_string());
                row.published_at = Set(published_at(to, from, item.published_at, now));
                row.updated_at = Set(now);
            }
            None => {
                row.is_deleted = Set(true);
                row.deleted_at = Set(Some(now));
            }
        }
        row.update(&txn).await?;
        if let Some(to) = status {
            notify_if_submitted(&txn, principal, kind, (from, to, now), item.id, &item.title, &[site_id]).await?;
        }
        let action = if status.is_some() { Action::Update } else { Action::Delete };
        let entry = audit_entry(&actor, action, kind, item.id, Some(site_id));
        audit::record(
            &txn,
            now,
            entry,
            &json!({"status": item.status, "is_deleted": false}),
            &json!({"status": status.map(|s| s.as_str()).unwrap_or(&item.status), "is_deleted": status.is_none()}),
        )
        .await?;
        changed.push((item.id, from));
    }
    let ids: Vec<Uuid> = changed.iter().map(|(id, _)| *id).collect();
    let models = content::Entity::find().filter(content::Column::Id.is_in(ids.clone())).all(&txn).await?;
    let mut rels = relations::load(&txn, &ids, false).await?;
    let mut events = Vec::new();
    for model in &models {
        let item = relations::response(model, rels.remove(&model.id).unwrap_or_default());
        let from = changed.iter().find(|(id, _)| *id == model.id).map(|(_, f)| *f).unwrap_or(ContentStatus::Draft);
        events.extend(match status {
            Some(_) => change_events(kind, from, &item, now),
            None => events_for(kind, "deleted", &item, now),
        });
    }
    commit_with_events(state, txn, events).await?;
    Ok(BulkResult { action: format!("{:?}", body.action), affected: models.len() })
}
