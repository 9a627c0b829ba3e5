//! Content writes: create, update, delete. Each runs in one transaction with its
//! audit entry; events go out after the commit (`events`). Copies are in `copy`,
//! review and bulk moves in `moves`; they share the helpers here.

use chrono::{DateTime, Utc};
use plinth_entities::content;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use uuid::Uuid;

use super::access::{
    check_status_move, load_live, require_may_edit, require_module, role_covering, touched_sites, ItemAccess,
};
use super::draft::{route_taken_error, slug_taken_error, store_relations, Draft, Existing};
use super::events::{change_events, created_events, events_for, store_events};
use super::kind_input::KindInput;
use super::model::{ContentResponse, CreateContent, UpdateContent};
use super::slug::{available_slug, retry_lost_slug_race, slugify};
use super::KindRules;
use super::{parts, relations, validate, ContentKind, ContentStatus};
use crate::audit::{self, Action, Actor, AuditEntry};
use crate::auth::{Capability, SitesGrant};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::events::EventAction;
use crate::permissions::RoleGrants;
use crate::state::AppState;
use crate::values::{required_line, Slug};

pub(super) fn audit_entry(
    actor: &Actor,
    action: Action,
    kind: ContentKind,
    id: Uuid,
    site_id: Option<Uuid>,
) -> AuditEntry<'_> {
    AuditEntry { actor, action, entity_type: kind.as_str(), entity_id: id.to_string(), site_id }
}

/// When an item enters review, its sites' reviewers are told (in the same transaction).
/// `(from, to, at)`: the status move and when it happened.
pub(super) async fn notify_if_submitted(
    txn: &crate::db::WriteTxn,
    actor: &Actor,
    kind: ContentKind,
    (from, to, at): (ContentStatus, ContentStatus, DateTime<Utc>),
    id: Uuid,
    title: &str,
    site_ids: &[Uuid],
) -> ApiResult<()> {
    if to != ContentStatus::InReview || from == ContentStatus::InReview {
        return Ok(());
    }
    let submitted = super::hooks::SubmittedForReview {
        site_ids,
        entity_type: kind.as_str(),
        entity_id: id,
        title,
        submitted_by: match actor {
            Actor::User(id) => Some(id.as_str()),
            _ => None,
        },
        at,
    };
    (super::hooks::hooks().submitted_for_review)(txn, submitted).await
}

/// Whether the editorial workflow is on for any of the sites.
pub(super) async fn workflow_enabled(state: &AppState, site_ids: &[Uuid]) -> ApiResult<bool> {
    for site_id in site_ids {
        if state.site_state(*site_id).await?.settings.editorial_workflow_enabled {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Inside a write transaction: the item as it was checked before the
/// transaction began, or 409 CONFLICT when another request changed it since.
pub(super) async fn still_unchanged(
    txn: &crate::db::WriteTxn,
    kind: ContentKind,
    checked: &content::Model,
) -> ApiResult<content::Model> {
    let current = load_live(txn, kind, checked.id).await?;
    // With `If-Match`, the audited write refuses it with 412 and what changed.
    if current.updated_at != checked.updated_at && !crate::preconditions::pending() {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            format!("the {} changed while this request ran; retry", kind.as_str()),
        ));
    }
    Ok(current)
}

/// After a status move: when it went live, and the publish timestamp to keep.
pub(super) fn published_at(
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
pub(super) async fn audited(
    txn: &crate::db::WriteTxn,
    at: DateTime<Utc>,
    id: Uuid,
    entry: AuditEntry<'_>,
    before: &impl serde::Serialize,
) -> ApiResult<ContentResponse> {
    let model =
        content::Entity::find_by_id(id).one(txn).await?.ok_or_else(|| ApiError::internal("content vanished"))?;
    let relations = relations::load(txn, &[id], true).await?.remove(&id).unwrap_or_default();
    let response = relations::response(&model, relations);
    audit::record_on_sites(txn, at, entry, &response.site_ids, before, &response).await?;
    Ok(response)
}

/// A new item on the sites `grant` covers (`access::new_item`).
pub async fn create(
    state: &AppState,
    grant: &SitesGrant,
    kind: ContentKind,
    body: CreateContent,
) -> ApiResult<ContentResponse> {
    let now = state.clock.now();
    let checked = check_new(state, grant, kind, body).await?;
    let generated = checked.explicit_slug.is_none() && checked.route.is_none();
    retry_lost_slug_race(generated, || async {
        audit::write(&state.db, async |txn| {
            let inserted = insert(txn, grant.actor(), kind, checked.clone(), false).await?;
            let created = audit_created(txn, now, grant.actor(), inserted).await?;
            store_events(state, txn, created_events(kind, &created, now)).await?;
            Ok(created)
        })
        .await
    })
    .await
}

/// A new item as [`insert`] stored it: answered without reading it back.
pub(crate) struct Inserted {
    pub(crate) id: Uuid,
    kind: ContentKind,
    model: content::Model,
    relations: relations::Relations,
}

/// Audits a created item and answers with it. The caller commits.
pub(crate) async fn audit_created(
    txn: &crate::db::WriteTxn,
    at: DateTime<Utc>,
    actor: &Actor,
    inserted: Inserted,
) -> ApiResult<ContentResponse> {
    let entry = audit_entry(actor, Action::Create, inserted.kind, inserted.id, None);
    let response = relations::response(&inserted.model, inserted.relations);
    audit::record_on_sites(txn, at, entry, &response.site_ids, &(), &response).await?;
    Ok(response)
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
    required_line("title", raw, validate::TITLE_MAX)
}

/// Validation, permissions, module and workflow checks for a new item. They read
/// through the pool, so they run before the write transaction: a transaction
/// holding SQLite's write lock must never wait for another pooled connection.
pub(crate) async fn check_new(
    state: &AppState,
    grant: &SitesGrant,
    kind: ContentKind,
    body: CreateContent,
) -> ApiResult<CheckedNew> {
    // Who may write where comes first: a caller refused on these sites heard
    // 403 as the grant was made, whatever its body (no site ids: refused by the
    // validation below).
    let role = role_covering(grant, &body.site_ids)?;
    role.ensure(Capability::CreateContent, &format!("creating a {}", kind.as_str()))?;
    let mut errors = Vec::new();
    validate::site_ids("site_ids", &body.site_ids, &mut errors);
    let title = item_title(&body.title).map_err(|e| errors.push(e)).ok();
    validate::texts(Some(&body.excerpt), Some(&body.body), &mut errors);
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
    txn: &crate::db::WriteTxn,
    actor: &Actor,
    kind: ContentKind,
    checked: CheckedNew,
    is_sample: bool,
) -> ApiResult<Inserted> {
    let CheckedNew { body, kind_fields: (mut fields, subtype), title, explicit_slug, route, status, now } = checked;
    let title_for_notice = title.clone();
    validate::taxonomy(txn, &body.site_ids, &body.category_ids, body.primary_category_id, &body.tag_ids).await?;
    if let Some(parent) = body.parent_page_id {
        super::page_parent::check(txn, &body.site_ids, None, parent).await?;
    }
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
    let parts_given = body.sections.is_some() || body.groups.is_some();
    let part_keys = parts::prepare(txn, kind, parts_given, &body.site_ids, id, &mut fields).await?;
    let model = content::ActiveModel {
        id: Set(id),
        kind: Set(kind),
        subtype: Set(subtype),
        slug: Set(slug.clone()),
        title: Set(title),
        excerpt: Set(body.excerpt),
        body: Set(body.body),
        status: Set(status),
        author: Set(body.author),
        created_by: Set(Some(actor.clone())),
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
    parts::replace_keys(txn, id, part_keys).await?;
    let draft = Draft {
        site_ids: body.site_ids,
        slug,
        route,
        category_ids: Some(body.category_ids),
        primary_category_id: body.primary_category_id,
        tag_ids: Some(body.tag_ids),
    };
    store_relations(txn, kind, id, &draft, Existing::New).await?;
    notify_if_submitted(txn, actor, kind, (ContentStatus::Draft, status, now), id, &title_for_notice, &draft.site_ids)
        .await?;
    // What `relations::load` would read back: sorted sets, the primary among them.
    let sorted = |ids: &Option<Vec<Uuid>>| {
        let mut ids = ids.clone().unwrap_or_default();
        ids.sort();
        ids
    };
    let category_ids = sorted(&draft.category_ids);
    let relations = relations::Relations {
        site_ids: sorted(&Some(draft.site_ids.clone())),
        route: draft.route.clone(),
        primary_category_id: draft.primary_category_id.filter(|p| category_ids.contains(p)),
        category_ids,
        tag_ids: sorted(&draft.tag_ids),
    };
    Ok(Inserted { id, kind, model, relations })
}

/// A change of the item `access` holds (`access::for_update`, or
/// `access::editable` for a change of its own fields): CONFLICT when it changed
/// since it was read.
pub async fn update(state: &AppState, access: ItemAccess, body: UpdateContent) -> ApiResult<ContentResponse> {
    let ItemAccess { item: current, relations: rel, grant } = access;
    let (id, kind) = (current.id, current.kind);
    let mut new_sites = body.site_ids.clone().unwrap_or_else(|| rel.site_ids.clone());
    new_sites.sort(); // as stored, so an unchanged set compares equal
    let role = role_covering(&grant, &touched_sites(&rel, body.site_ids.as_deref()))?;

    let mut errors = Vec::new();
    if let Some(ids) = &body.site_ids {
        validate::site_ids("site_ids", ids, &mut errors);
    }
    let title = body.title.as_deref().and_then(|t| item_title(t).map_err(|e| errors.push(e)).ok());
    validate::texts(body.excerpt.as_deref(), body.body.as_deref(), &mut errors);
    let explicit_slug = body.slug.as_deref().and_then(|s| Slug::parse("slug", s).map_err(|e| errors.push(e)).ok());
    let route = body.route.as_deref().and_then(|r| validate::route(r).map_err(|e| errors.push(e)).ok());
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let (fields, subtype) =
        validate::kind_data(kind, body.route.is_some(), &KindInput::from(&body), Some(&current.fields))
            .map_err(ApiError::validation)?;
    let before = relations::response(&current, rel.clone());
    require_module(state, kind, &new_sites).await?;
    let from = current.status;
    let is_own = current.created_by.as_ref() == Some(grant.actor());
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
    audit::write(&state.db, async |txn| {
        still_unchanged(txn, kind, &current).await?;

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
        validate::taxonomy(txn, &new_sites, &category_ids, primary, &tag_ids).await?;
        if let Some(Some(parent)) = body.parent_page_id {
            super::page_parent::check(txn, &new_sites, Some(id), parent).await?;
        }

        let slug = explicit_slug.map(Slug::into_inner).unwrap_or_else(|| current.slug.clone());
        let route = if kind == ContentKind::Page { route.or_else(|| rel.route.clone()) } else { None };
        let sites_changed = new_sites != rel.site_ids || slug != current.slug || route != rel.route;
        if sites_changed {
            if validate::slug_taken(txn, kind, &new_sites, &slug, Some(id)).await? {
                return Err(slug_taken_error(kind, &slug));
            }
            if let Some(route) = &route {
                if validate::route_taken(txn, &new_sites, route, Some(id)).await? {
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
        row.status = Set(to);
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
        let mut fields = fields;
        let parts_given = body.sections.is_some() || body.groups.is_some();
        let part_keys = parts::prepare(txn, kind, parts_given, &new_sites, id, &mut fields).await?;
        row.fields = Set(fields);
        row.subtype = Set(subtype);
        row.updated_at = Set(now);
        row.update(txn).await?;
        parts::replace_keys(txn, id, part_keys).await?;
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
        let existing = if sites_changed { Existing::ReplaceSites } else { Existing::KeepSites };
        store_relations(txn, kind, id, &draft, existing).await?;
        let title = body.title.as_deref().unwrap_or(&current.title);
        notify_if_submitted(txn, grant.actor(), kind, (from, to, now), id, title, &draft.site_ids).await?;
        let entry = audit_entry(grant.actor(), Action::Update, kind, id, draft.site_ids.first().copied());
        let updated = audited(txn, now, id, entry, &before).await?;
        store_events(state, txn, change_events(kind, from, &updated, now)).await?;
        Ok(updated)
    })
    .await
}

/// Soft delete: the item leaves listings and appears in the trash.
/// (`access::on_all_sites`)
pub async fn delete(state: &AppState, access: ItemAccess) -> ApiResult<()> {
    let (role, is_own) = (access.role(), access.is_own());
    let ItemAccess { item: current, relations: rel, grant } = access;
    let (id, kind) = (current.id, current.kind);
    role.ensure(Capability::CreateContent, &format!("deleting a {}", kind.as_str()))?;
    if !role.has(Capability::EditAnyContent) && !is_own {
        return Err(ApiError::new(
            ErrorCode::AuthInsufficientRole,
            format!("authors may only delete their own {}s", kind.as_str()),
        ));
    }
    let before = relations::response(&current, rel);
    let now = state.clock.now();
    audit::write(&state.db, async |txn| {
        let current = still_unchanged(txn, kind, &current).await?;
        let mut row: content::ActiveModel = current.into();
        row.is_deleted = Set(true);
        row.deleted_at = Set(Some(now));
        row.update(txn).await?;
        let entry = audit_entry(grant.actor(), Action::Delete, kind, id, before.site_ids.first().copied());
        let deleted = json!({"is_deleted": true, "deleted_at": now});
        audit::record_on_sites(txn, now, entry, &before.site_ids, &before, &deleted).await?;
        store_events(state, txn, events_for(kind, EventAction::Deleted, &before, now)).await?;
        Ok(())
    })
    .await
}

/// Soft-deletes items (already checked by the caller) with an audit entry each;
/// returns them as they were, for the `deleted` events after commit.
pub(crate) async fn soft_delete_many(
    txn: &crate::db::WriteTxn,
    now: DateTime<Utc>,
    actor: &Actor,
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
    let mut out = Vec::new();
    for model in &models {
        let item = relations::response(model, rels.remove(&model.id).unwrap_or_default());
        let entry = audit_entry(actor, Action::Delete, kind, model.id, item.site_ids.first().copied());
        let deleted = json!({"is_deleted": true, "deleted_at": now});
        audit::record_on_sites(txn, now, entry, &item.site_ids, &item, &deleted).await?;
        out.push(item);
    }
    Ok(out)
}
