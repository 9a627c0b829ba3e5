//! Social link rules and writes; every write records its audit entry in the
//! same transaction.

use chrono::{DateTime, Utc};
use plinth_entities::social_link;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::{json, Value};
use uuid::Uuid;

use super::model::{CreateSocialLink, SocialLinkResponse, UpdateSocialLink};
use crate::audit::{self, Action};
use crate::error::{ApiError, ApiResult, FieldError};
use crate::site_rows::{self, SiteRow};
use crate::state::AppState;
use crate::values::{required_line, Slug};

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
    actor: &str,
    now: DateTime<Utc>,
    site_id: Uuid,
    body: CreateSocialLink,
) -> ApiResult<SocialLinkResponse> {
    state.site_state(site_id).await?;
    let mut errors = Vec::new();
    let given_platform = body.platform.clone().unwrap_or_else(|| platform_of(&body.url));
    let platform = check_platform(&given_platform).map_err(|e| errors.push(e)).ok();
    let url = check_url(&body.url).map_err(|e| errors.push(e)).ok();
    let (Some(platform), Some(url), true) = (platform, url, errors.is_empty()) else {
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
    actor: &str,
    now: DateTime<Utc>,
    current: social_link::Model,
    body: UpdateSocialLink,
) -> ApiResult<SocialLinkResponse> {
    let mut errors = Vec::new();
    let platform = body.platform.as_deref().and_then(|p| check_platform(p).map_err(|e| errors.push(e)).ok());
    let url = body.url.as_deref().and_then(|u| check_url(u).map_err(|e| errors.push(e)).ok());
    let label = body.label.as_deref().and_then(|l| required_line("label", l, 100).map_err(|e| errors.push(e)).ok());
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

/// Moves the link to the trash.
pub async fn delete(state: &AppState, actor: &str, now: DateTime<Utc>, current: social_link::Model) -> ApiResult<()> {
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
