//! Content reads. Lists run a bounded number of queries whatever the page size.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use plinth_entities::{content, content_localization, content_site, environment, term};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, Select};
use uuid::Uuid;

use super::access::{load_live, ItemAccess};
use super::listing::{self, Filter, Sort};
use super::localized;
use super::model::{CategoryRef, ContentDetail, ContentListItem, ContentResponse, LocalizationResponse};
use super::model::{CvEntryType, LegalDocumentType};
use super::queries::{IncludeQuery, LocaleQuery, PreviewLink, PublishedQuery};
use super::relations;
use super::rendering::Rendering;
use super::{ContentKind, ContentStatus};
use crate::auth::SiteGrant;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::pagination::{Page, Paginated};
use crate::state::AppState;
use crate::state::CachedBody;

pub const SIMILAR_DEFAULT: u64 = 3;
pub const SIMILAR_MAX: u64 = 10;
/// How far back `similar` looks (the latest published items), and how many
/// related ones among them it scores: both bounded whatever the site.
const SIMILAR_WINDOW: u64 = 1_000;
const SIMILAR_CANDIDATES: u64 = 200;

/// Keeps the items that appear on `site_id` (any kind, deleted or not).
///
/// A join with the site's rows in `content_sites` (primary key `content_id,
/// site_id`, so one row per item), which with [`on_site`]'s kind filter can use
/// the `(site_id, kind, slug)` index on a database of many sites.
pub fn on_site_only(select: Select<content::Entity>, site_id: Uuid) -> Select<content::Entity> {
    select.inner_join(content_site::Entity).filter(content_site::Column::SiteId.eq(site_id))
}

/// Live items of `kind` on `site_id`: the site's `(site_id, kind, slug)` index.
fn on_site(kind: ContentKind, site_id: Uuid) -> Select<content::Entity> {
    let live = content::Entity::find()
        .filter(content::Column::Kind.eq(kind.as_str()))
        .filter(content_site::Column::Kind.eq(kind.as_str()))
        .filter(content::Column::IsDeleted.eq(false));
    on_site_only(live, site_id)
}

/// The response for a model, relations read through `db` (e.g. a transaction).
pub async fn response_of<C: sea_orm::ConnectionTrait>(db: &C, model: &content::Model) -> ApiResult<ContentResponse> {
    let rel = relations::load(db, &[model.id], true).await?.remove(&model.id).unwrap_or_default();
    Ok(relations::response(model, rel))
}

/// The item with its localizations, categories and (posts) attached documents.
pub async fn detail(state: &AppState, access: ItemAccess) -> ApiResult<ContentDetail> {
    let (id, kind) = (access.id(), access.kind());
    let item = access.response();
    let localizations = content_localization::Entity::find()
        .filter(content_localization::Column::ContentId.eq(id))
        .order_by_asc(content_localization::Column::CreatedAt)
        .all(&state.db)
        .await?
        .iter()
        .map(LocalizationResponse::from)
        .collect();
    let categories = term::Entity::find()
        .filter(term::Column::Id.is_in(item.category_ids.clone()))
        .order_by_asc(term::Column::Name)
        .all(&state.db)
        .await?
        .into_iter()
        .map(|c| CategoryRef {
            is_primary: item.primary_category_id == Some(c.id),
            id: c.id,
            slug: c.slug,
            name: c.name,
        })
        .collect();
    let documents = match kind {
        ContentKind::Blog => (super::hooks::hooks().post_attachments)(state, id).await?,
        _ => Vec::new(),
    };
    Ok(ContentDetail { item, localizations, categories, documents })
}

/// What an admin list may ask for beyond its page.
#[derive(Clone, Debug, Default)]
pub struct ListOptions {
    pub entry_type: Option<CvEntryType>,
    /// Legal documents of one type (not a query parameter: the site's cookie
    /// consent document is found with it).
    pub document_type: Option<LegalDocumentType>,
    pub status: Option<ContentStatus>,
    /// Newest first when `None`.
    pub sort: Option<Sort>,
    /// What `search` asked for, as given.
    pub search: Option<String>,
}

/// A site's live items of `kind`, newest first unless `options.sort` says
/// otherwise: an index range scan whatever the site's size (see `listing`).
pub async fn list(
    state: &AppState,
    site: &SiteGrant,
    kind: ContentKind,
    page: Page,
    options: ListOptions,
) -> ApiResult<Paginated<ContentListItem>> {
    let site_id = site.site_id();
    let search = match options.search.as_deref() {
        Some(raw) => listing::Search::parse(raw, state.db.get_database_backend())?,
        None => None,
    };
    let mut filter = Filter { status: options.status, search, ..Filter::live(kind, site_id) };
    if let Some(entry_type) = options.entry_type {
        if kind != ContentKind::CvEntry {
            return Err(ApiError::bad_request("entry_type filters CV entries only"));
        }
        filter.subtype = Some(entry_type.as_str().to_string());
    }
    if let Some(document_type) = options.document_type.filter(|_| kind == ContentKind::Legal) {
        filter.subtype = Some(document_type.stored().to_string());
    }
    listed(state, &filter, options.sort.unwrap_or(Sort::NEWEST), page).await
}

/// A page of `filter`'s items as list items.
async fn listed(state: &AppState, filter: &Filter, sort: Sort, page: Page) -> ApiResult<Paginated<ContentListItem>> {
    let found = listing::page_with_sites(state, filter, sort, page).await?;
    Ok(found.map(|(model, site_ids, route)| ContentListItem::new(&model, site_ids, route)))
}

/// Published items, newest first; with `locale_id`, only those localized in it
/// (the filter is part of the query, so totals count only those). Served from
/// the site's cache, which any content change drops.
pub async fn list_published(
    state: &AppState,
    site: &SiteGrant,
    kind: ContentKind,
    query: PublishedQuery,
    render: (&LocaleQuery, &IncludeQuery),
) -> ApiResult<Arc<CachedBody>> {
    let site_id = site.site_id();
    let page = crate::pagination::PageParams { page: query.page, per_page: query.per_page }.resolve();
    let site = state.site_state(site_id).await?;
    let locale_id = query.locale_id.as_deref().map(|named| localized::locale_filter(&site, "locale_id", named));
    let locale_id = locale_id.transpose()?;
    let rendering = Rendering::of_request(&site, render.0, render.1)?;
    let key = format!("published:{}:{}:{}:{locale_id:?}:{}", kind.as_str(), page.page, page.per_page, rendering.key());
    site.public
        .get_or_build(key, PUBLISHED_TTL, async {
            let filter = Filter { locale_id, ..Filter::published(kind, site_id) };
            let mut items = listed(state, &filter, Sort::LATEST_PUBLISHED, page).await?;
            rendering.list(state, &mut items.data).await?;
            let body = serde_json::to_vec(&items).map_err(ApiError::internal)?;
            Ok(CachedBody::new("application/json", body))
        })
        .await
}

/// Published lists are rebuilt on any content change; this bounds staleness
/// from time-driven changes (publish windows) between Janitor passes.
const PUBLISHED_TTL: std::time::Duration = std::time::Duration::from_secs(300);

pub async fn featured(
    state: &AppState,
    site: &SiteGrant,
    kind: ContentKind,
    limit: u64,
    render: (&LocaleQuery, &IncludeQuery),
) -> ApiResult<Vec<ContentListItem>> {
    let site_id = site.site_id();
    let rendering = Rendering::of_request(&*state.site_state(site_id).await?, render.0, render.1)?;
    let filter = Filter { featured_only: true, ..Filter::published(kind, site_id) };
    let models = listing::load_page(&state.db, &filter, Sort::LATEST_PUBLISHED, limit.clamp(1, 100), 0).await?;
    let mut items = relations::list_items(&state.db, &models).await?;
    rendering.list(state, &mut items).await?;
    Ok(items)
}

/// `item` rendered as a front end on `site_id` asks (as it is when it asks nothing).
pub async fn rendered(
    state: &AppState,
    site_id: Uuid,
    render: (&LocaleQuery, &IncludeQuery),
    mut item: ContentResponse,
) -> ApiResult<ContentResponse> {
    if render.0.locale.is_none() && render.1.include.is_none() {
        return Ok(item);
    }
    let rendering = Rendering::of_request(&*state.site_state(site_id).await?, render.0, render.1)?;
    rendering.item(state, &mut item).await?;
    Ok(item)
}

pub async fn by_slug(state: &AppState, site: &SiteGrant, kind: ContentKind, slug: &str) -> ApiResult<ContentResponse> {
    let site_id = site.site_id();
    let model = on_site(kind, site_id)
        .filter(content::Column::Slug.eq(slug))
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found(kind.as_str(), slug))?;
    let rel = relations::load(&state.db, &[model.id], true).await?.remove(&model.id).unwrap_or_default();
    Ok(relations::response(&model, rel))
}

/// Where to preview an item: the environment's base URL plus the item's path
/// (`/blog/{slug}` for posts, the route for pages).
/// (`access::readable`)
pub async fn preview(state: &AppState, access: &ItemAccess, environment_id: Option<Uuid>) -> ApiResult<PreviewLink> {
    let (kind, item) = (access.kind(), access.response());
    let environment = match environment_id {
        Some(env_id) => {
            let env = environment::Entity::find_by_id(env_id)
                .one(&state.db)
                .await?
                .ok_or_else(|| ApiError::not_found("environment", env_id))?;
            if !item.site_ids.contains(&env.site_id) {
                return Err(ApiError::not_found("environment", env_id));
            }
            env
        }
        None => {
            // The first of the item's sites (in their order) with a default.
            let defaults = environment::Entity::find()
                .filter(environment::Column::SiteId.is_in(item.site_ids.clone()))
                .filter(environment::Column::IsDefault.eq(true))
                .all(&state.db)
                .await?;
            let first = item.site_ids.iter().find_map(|site| defaults.iter().find(|env| env.site_id == *site));
            first.cloned().ok_or_else(|| {
                ApiError::new(
                    ErrorCode::ContentNoDefaultEnvironment,
                    "none of the item's sites has a default environment; pass environment_id",
                )
            })?
        }
    };
    let base = environment.base_url.clone().ok_or_else(|| {
        ApiError::bad_request(format!("the environment '{}' has no base_url to preview on", environment.name))
    })?;
    let path = match kind {
        ContentKind::Page => item.kind_fields.get("route").and_then(|r| r.as_str()).unwrap_or("/").to_string(),
        ContentKind::Blog => format!("/blog/{}", item.slug),
        ContentKind::Project => format!("/projects/{}", item.slug),
        ContentKind::CvEntry => format!("/cv/{}", item.slug),
        ContentKind::Legal => format!("/legal/{}", item.slug),
        ContentKind::Skill => format!("/skills/{}", item.slug),
    };
    Ok(PreviewLink { environment_id: environment.id, environment: environment.name, url: format!("{base}{path}") })
}

/// Similar score of a candidate: +3 per shared tag, +2 per shared category,
/// +3 when the primary categories match, +1 for the same author.
pub fn similarity(
    tags: &[Uuid],
    categories: &[Uuid],
    primary: Option<Uuid>,
    author: Option<&str>,
    candidate: &relations::Relations,
    candidate_author: Option<&str>,
) -> u32 {
    let shared_tags = candidate.tag_ids.iter().filter(|t| tags.contains(t)).count() as u32;
    let shared_categories = candidate.category_ids.iter().filter(|c| categories.contains(c)).count() as u32;
    let primary_match = primary.is_some() && primary == candidate.primary_category_id;
    let same_author = author.is_some() && author == candidate_author;
    3 * shared_tags + 2 * shared_categories + if primary_match { 3 } else { 0 } + u32::from(same_author)
}

/// Published items of the site related to `id`, best first, ties newest first.
pub async fn similar(
    state: &AppState,
    site: &SiteGrant,
    kind: ContentKind,
    id: Uuid,
    limit: u64,
) -> ApiResult<Vec<ContentListItem>> {
    let site_id = site.site_id();
    let target = load_live(&state.db, kind, id).await?;
    let rel = relations::load(&state.db, &[id], true).await?.remove(&id).unwrap_or_default();
    if !rel.site_ids.contains(&site_id) {
        return Err(ApiError::not_found(kind.as_str(), id));
    }
    // Candidates: among the latest SIMILAR_WINDOW published items, the newest
    // SIMILAR_CANDIDATES sharing a tag or a category, or by the same author.
    let related = listing::Related {
        tag_ids: &rel.tag_ids,
        category_ids: &rel.category_ids,
        author: target.author.as_deref(),
        except: id,
    };
    let published = Filter::published(kind, site_id);
    let candidate_ids =
        listing::related_ids(&state.db, &published, &related, SIMILAR_WINDOW, SIMILAR_CANDIDATES).await?;
    let candidates = listing::load_in_order(&state.db, &candidate_ids).await?;
    let ids: Vec<Uuid> = candidates.iter().map(|m| m.id).collect();
    let rels: HashMap<Uuid, relations::Relations> = relations::load(&state.db, &ids, true).await?;
    let mut scored: Vec<(u32, Option<DateTime<Utc>>, &content::Model)> = candidates
        .iter()
        .filter_map(|m| {
            let candidate = rels.get(&m.id)?;
            let score = similarity(
                &rel.tag_ids,
                &rel.category_ids,
                rel.primary_category_id,
                target.author.as_deref(),
                candidate,
                m.author.as_deref(),
            );
            (score > 0).then_some((score, m.published_at, m))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let top: Vec<content::Model> =
        scored.into_iter().take(limit.clamp(1, SIMILAR_MAX) as usize).map(|(_, _, m)| m.clone()).collect();
    Ok(top
        .iter()
        .map(|m| {
            let relations = rels.get(&m.id).cloned().unwrap_or_default();
            ContentListItem::new(m, relations.site_ids, relations.route)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similarity_follows_the_spec_weights() {
        let (t1, t2, c1, c2) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let candidate = relations::Relations {
            tag_ids: vec![t1, t2],
            category_ids: vec![c1],
            primary_category_id: Some(c1),
            ..Default::default()
        };
        // 2 shared tags (6) + 1 shared category (2) + primary match (3) + author (1)
        assert_eq!(similarity(&[t1, t2], &[c1, c2], Some(c1), Some("ann"), &candidate, Some("ann")), 12);
        assert_eq!(similarity(&[], &[], None, None, &candidate, None), 0);
    }
}
