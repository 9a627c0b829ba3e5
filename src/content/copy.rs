//! Copies of an item: a Draft duplicate (clone), or the next version of a legal
//! document. Slugs and routes take the next free suffix.

use plinth_entities::{content, content_localization};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use uuid::Uuid;

use super::access::ItemAccess;
use super::draft::{store_relations, Draft, Existing};
use super::events::{created_events, store_events};
use super::model::ContentResponse;
use super::slug::{available_slug, retry_lost_slug_race};
use super::write::{audit_entry, audited, still_unchanged};
use super::{validate, ContentKind, ContentStatus};
use crate::audit::{self, Action};
use crate::auth::Capability;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::permissions::RoleGrants;
use crate::state::AppState;

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
/// (`access::on_all_sites`)
pub async fn clone(state: &AppState, source: ItemAccess) -> ApiResult<ContentResponse> {
    copy_item(state, source, CopyAs::Duplicate).await
}

/// A new Draft version of a legal document (`access::on_all_sites`, once
/// [`ensure_version_source_live`] passed).
pub async fn new_version(state: &AppState, source: ItemAccess) -> ApiResult<ContentResponse> {
    copy_item(state, source, CopyAs::NextVersion).await
}

/// LEGAL_VERSION_SOURCE_DELETED when the source of a new version is in the
/// trash: asked before the source is looked up as a live item.
pub async fn ensure_version_source_live(state: &AppState, kind: ContentKind, id: Uuid) -> ApiResult<()> {
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
    Ok(())
}

/// `privacy-v3` → `privacy`
fn without_version_suffix(slug: &str) -> &str {
    match slug.rsplit_once("-v") {
        Some((base, n)) if !base.is_empty() && !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => base,
        _ => slug,
    }
}

async fn copy_item(state: &AppState, access: ItemAccess, copy_as: CopyAs) -> ApiResult<ContentResponse> {
    let ItemAccess { item: source, relations: rel, grant } = access;
    let (id, kind, role) = (source.id, source.kind, grant.role());
    role.ensure(Capability::CreateContent, &format!("copying a {}", kind.as_str()))?;
    if copy_as == CopyAs::NextVersion && kind != ContentKind::Legal {
        return Err(ApiError::bad_request("only legal documents have versions"));
    }
    // Copies always take generated slugs and routes.
    retry_lost_slug_race(true, || async {
        audit::write(&state.db, async |txn| {
            let source = still_unchanged(txn, kind, &source).await?;
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
                available_slug(txn, kind, &rel.site_ids, &slug_base, None, ErrorCode::ContentSlugGenerationFailed)
                    .await?;
            let route = match &rel.route {
                Some(route) => {
                    Some(available_route(txn, &rel.site_ids, &format!("{}-copy", route.trim_end_matches('/'))).await?)
                }
                None => None,
            };
            let now = state.clock.now();
            let new_id = Uuid::new_v4();
            // The copy's parts (sections, consent groups) are its own: new ids,
            // keys of its own.
            let mut fields = fields;
            super::parts::renew_ids(kind, &mut fields, |text| Some(text.locale_id));
            let part_keys = Some(super::parts::keys(kind, new_id, &fields));
            let mut row: content::ActiveModel = source.clone().into();
            row.id = Set(new_id);
            row.slug = Set(slug.clone());
            row.title = Set(title);
            row.fields = Set(fields);
            row.status = Set(ContentStatus::Draft);
            row.created_by = Set(Some(grant.actor().clone()));
            row.published_at = Set(None);
            row.is_featured = Set(false);
            row.is_sample = Set(false);
            row.created_at = Set(now);
            row.updated_at = Set(now);
            let row = row.reset_all();
            row.insert(txn).await?;
            super::parts::replace_keys(txn, new_id, part_keys).await?;
            let draft = Draft {
                site_ids: rel.site_ids.clone(),
                slug,
                route,
                category_ids: Some(rel.category_ids.clone()),
                primary_category_id: rel.primary_category_id,
                tag_ids: Some(rel.tag_ids.clone()),
            };
            store_relations(txn, kind, new_id, &draft, Existing::New).await?;
            let localizations = content_localization::Entity::find()
                .filter(content_localization::Column::ContentId.eq(id))
                .all(txn)
                .await?;
            for loc in localizations {
                let mut copy: content_localization::ActiveModel = loc.into();
                copy.id = Set(Uuid::new_v4());
                copy.content_id = Set(new_id);
                copy.created_at = Set(now);
                copy.updated_at = Set(now);
                copy.reset_all().insert(txn).await?;
            }
            let entry = audit_entry(grant.actor(), Action::Create, kind, new_id, draft.site_ids.first().copied());
            let created = audited(txn, now, new_id, entry, &json!({"copied_from": id})).await?;
            store_events(state, txn, created_events(kind, &created, now)).await?;
            Ok(created)
        })
        .await
    })
    .await
}

/// The first of `base`, `base-2`, … not used as a page route on any of the sites.
async fn available_route<C: ConnectionTrait>(db: &C, site_ids: &[Uuid], base: &str) -> ApiResult<String> {
    for candidate in crate::values::numbered(base, 1..=super::slug::MAX_SLUG_ATTEMPTS as u32) {
        if !validate::route_taken(db, site_ids, &candidate, None).await? {
            return Ok(candidate);
        }
    }
    Err(ApiError::new(ErrorCode::ContentRouteGenerationFailed, format!("no free route for '{base}'")))
}
