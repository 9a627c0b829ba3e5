//! Social link rules and writes; every write records its audit entry in the
//! same transaction.

use chrono::{DateTime, Utc};
use plinth_entities::social_link;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::{json, Value};
use uuid::Uuid;

use super::model::{CreateSocialLink, ReorderSocialLinks, SocialLinkResponse, UpdateSocialLink};
use crate::audit::{self, Action, Actor};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::site_rows::{self, SiteRow};
use crate::state::AppState;
use crate::values::{optional_line, required_line, Slug};

/// The longest alt text, as the origin service allows.
const ALT_TEXT_MAX: usize = 200;

impl SiteRow for social_link::Model {
    type Table = social_link::Entity;
    const KIND: &'static str = "social";
    const IS_DELETED: Option<social_link::Column> = Some(social_link::Column::IsDeleted);

    fn id(&self) -> Uuid {
        self.id
    }

    fn site_id(&self) -> Uuid {
        self.site_id
    }
}

fn check_url(raw: &str) -> Result<String, FieldError> {
    crate::values::link_target("url", raw, false)
}

/// `https://www.github.com/ann` → `github`: the host's name without `www.`
/// and the top-level domain.
fn platform_of(url: &str) -> String {
    let host = url::Url::parse(url.trim()).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase));
    let host = host.unwrap_or_default();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let name = host.rsplit_once('.').map_or(host, |(name, _tld)| name);
    crate::content::slugify(name.rsplit('.').next().unwrap_or(name))
}

fn check_platform(raw: &str) -> Result<String, FieldError> {
    Slug::parse("platform", raw.trim()).map(Slug::into_inner)
}

pub async fn list(state: &AppState, site_id: Uuid) -> ApiResult<Vec<SocialLinkResponse>> {
    let links = social_link::Entity::find()
        .filter(social_link::Column::SiteId.eq(site_id))
        .filter(social_link::Column::IsDeleted.eq(false))
        .order_by_asc(social_link::Column::DisplayOrder)
        .order_by_asc(social_link::Column::CreatedAt)
        .order_by_asc(social_link::Column::Id)
        .all(&state.db)
        .await?;
    Ok(links.iter().map(SocialLinkResponse::from).collect())
}

pub async fn create(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    site_id: Uuid,
    body: CreateSocialLink,
) -> ApiResult<SocialLinkResponse> {
    state.site_state(site_id).await?;
    let mut errors = Vec::new();
    if body.site_id.is_some_and(|given| given != site_id) {
        errors.push(FieldError::new("site_id", ErrorCode::ValidationInvalidFormat, "must be the site of the path"));
    }
    let alt_text = optional_line("alt_text", body.alt_text.as_deref(), ALT_TEXT_MAX).map_err(|e| errors.push(e)).ok();
    let given_platform = body.platform.clone().unwrap_or_else(|| platform_of(&body.url));
    let platform = check_platform(&given_platform).map_err(|e| errors.push(e)).ok();
    let url = check_url(&body.url).map_err(|e| errors.push(e)).ok();
    let (Some(platform), Some(url), Some(alt_text), true) = (platform, url, alt_text, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let label = match body.label.as_deref() {
        Some(l) => required_line("label", l, 100).map_err(|e| ApiError::validation(vec![e]))?,
        None => platform.clone(),
    };
    let row = social_link::ActiveModel {
        id: Set(Uuid::new_v4()),
        site_id: Set(site_id),
        platform: Set(platform),
        url: Set(url),
        label: Set(label),
        alt_text: Set(alt_text),
        display_order: Set(body.display_order),
        is_active: Set(body.is_active.unwrap_or(true)),
        created_at: Set(now),
        updated_at: Set(now),
        deleted_at: Set(None),
        is_deleted: Set(false),
    };
    site_rows::audited_write(&state.db, now, actor, Action::Create, Value::Null)
        .run(row, |m| SocialLinkResponse::from(m), ApiError::from)
        .await
}

pub async fn update(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    current: social_link::Model,
    body: UpdateSocialLink,
) -> ApiResult<SocialLinkResponse> {
    let mut errors = Vec::new();
    let platform = body.platform.as_deref().and_then(|p| check_platform(p).map_err(|e| errors.push(e)).ok());
    let url = body.url.as_deref().and_then(|u| check_url(u).map_err(|e| errors.push(e)).ok());
    let label = body.label.as_deref().and_then(|l| required_line("label", l, 100).map_err(|e| errors.push(e)).ok());
    let alt_text = body
        .alt_text
        .map(|given| optional_line("alt_text", given.as_deref(), ALT_TEXT_MAX))
        .transpose()
        .map_err(|e| errors.push(e))
        .ok()
        .flatten();
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let before = SocialLinkResponse::from(&current);
    let mut row: social_link::ActiveModel = current.into();
    if let Some(platform) = platform {
        row.platform = Set(platform);
    }
    if let Some(url) = url {
        row.url = Set(url);
    }
    if let Some(label) = label {
        row.label = Set(label);
    }
    if let Some(alt_text) = alt_text {
        row.alt_text = Set(alt_text);
    }
    if let Some(order) = body.display_order {
        row.display_order = Set(order);
    }
    if let Some(active) = body.is_active {
        row.is_active = Set(active);
    }
    row.updated_at = Set(now);
    site_rows::audited_write(&state.db, now, actor, Action::Update, json!(before))
        .run(row, |m| SocialLinkResponse::from(m), ApiError::from)
        .await
}

/// Gives each named live link of the site its new position, in one
/// transaction with an audit entry per link that moved. A link that is not on
/// the site (or in the trash) is a 404 and nothing moves.
pub async fn reorder(
    state: &AppState,
    actor: &Actor,
    now: DateTime<Utc>,
    site_id: Uuid,
    body: ReorderSocialLinks,
) -> ApiResult<()> {
    crate::values::reorder_ids(body.items.iter().map(|item| item.id))?;
    let ids: Vec<Uuid> = body.items.iter().map(|item| item.id).collect();
    audit::write(&state.db, async |txn| {
        let found = social_link::Entity::find()
            .filter(social_link::Column::SiteId.eq(site_id))
            .filter(social_link::Column::IsDeleted.eq(false))
            .filter(social_link::Column::Id.is_in(ids))
            .all(txn)
            .await?;
        let found: std::collections::HashMap<Uuid, &social_link::Model> = found.iter().map(|l| (l.id, l)).collect();
        let mut moved = 0;
        for item in &body.items {
            let Some(&current) = found.get(&item.id) else {
                return Err(ApiError::not_found(social_link::Model::KIND, item.id));
            };
            if current.display_order == item.display_order {
                continue;
            }
            let before = SocialLinkResponse::from(current);
            let mut row: social_link::ActiveModel = current.clone().into();
            row.display_order = Set(item.display_order);
            row.updated_at = Set(now);
            let stored = row.update(txn).await?;
            audit::record(
                txn,
                now,
                stored.audit_entry(actor, Action::Update),
                &before,
                &SocialLinkResponse::from(&stored),
            )
            .await?;
            moved += 1;
        }
        if moved == 0 {
            txn.found_nothing_to_change();
        }
        Ok(())
    })
    .await
}

/// Moves the link to the trash.
pub async fn delete(state: &AppState, actor: &Actor, now: DateTime<Utc>, current: social_link::Model) -> ApiResult<()> {
    let before = SocialLinkResponse::from(&current);
    let mut row: social_link::ActiveModel = current.into();
    row.is_deleted = Set(true);
    row.deleted_at = Set(Some(now));
    audit::Write {
        after: Some(json!({"is_deleted": true})),
        ..site_rows::audited_write(&state.db, now, actor, Action::Delete, json!(before))
    }
    .run(row, |_| (), ApiError::from)
    .await
}
