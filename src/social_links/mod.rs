//! Social links of a site, ordered by `display_order`. Deleting one moves it to
//! the trash (`entity_type=social`).

pub mod trash;

use actix_web::web::{self};
use actix_web::HttpResponse;
use chrono::{DateTime, Utc};
use plinth_entities::social_link;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::audit::{self, Action, AuditEntry};
use crate::auth::{Capability, Principal};
use crate::error::{ApiError, ApiResult, FieldError};
use crate::routes::Routes;
use crate::state::AppState;
use crate::values::{required_text, Slug};

pub fn routes(r: &mut Routes) {
    crate::mount!(r, self => [list_social_links, create_social_link, update_social_link, delete_social_link]);
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SocialLinkResponse {
    pub id: Uuid,
    pub site_id: Uuid,
    pub platform: String,
    pub url: String,
    pub label: String,
    pub display_order: i32,
    pub is_active: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&social_link::Model> for SocialLinkResponse {
    fn from(m: &social_link::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            platform: m.platform.clone(),
            url: m.url.clone(),
            label: m.label.clone(),
            display_order: m.display_order,
            is_active: m.is_active,
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateSocialLink {
    /// Lowercase name: `github`, `mastodon`, `linkedin`, …
    /// `github`, `mastodon`, … (`icon` is accepted too); from the URL's host
    /// (`github.com` → `github`) when omitted.
    #[serde(default, alias = "icon")]
    pub platform: Option<String>,
    /// The profile's http(s) URL.
    pub url: String,
    /// Shown text; the platform when omitted.
    #[serde(alias = "title")]
    pub label: Option<String>,
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub display_order: i32,
    pub is_active: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateSocialLink {
    #[serde(alias = "icon")]
    pub platform: Option<String>,
    pub url: Option<String>,
    #[serde(alias = "title")]
    pub label: Option<String>,
    pub display_order: Option<i32>,
    pub is_active: Option<bool>,
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

fn audit_entry<'a>(actor: &'a str, action: Action, link: &social_link::Model) -> AuditEntry<'a> {
    AuditEntry { actor, action, entity_type: "social", entity_id: link.id.to_string(), site_id: Some(link.site_id) }
}

async fn find_live(state: &AppState, principal: &Principal, id: Uuid) -> ApiResult<social_link::Model> {
    let link = social_link::Entity::find_by_id(id)
        .filter(social_link::Column::IsDeleted.eq(false))
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("social", id))?;
    principal.require(state, link.site_id, Capability::EditAnyContent).await?;
    Ok(link)
}

#[utoipa::path(get, path = "/sites/{site_id}/social-links", tag = "Social links", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<SocialLinkResponse>, description = "Ordered by display_order")))]
pub async fn list_social_links(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    let links = social_link::Entity::find()
        .filter(social_link::Column::SiteId.eq(site_id))
        .filter(social_link::Column::IsDeleted.eq(false))
        .order_by_asc(social_link::Column::DisplayOrder)
        .order_by_asc(social_link::Column::CreatedAt)
        .all(&state.db)
        .await?;
    Ok(HttpResponse::Ok().json(links.iter().map(SocialLinkResponse::from).collect::<Vec<_>>()))
}

#[utoipa::path(
    post,
    path = "/sites/{site_id}/social-links",
    tag = "Social links",
    params(("site_id" = Uuid, Path)),
    request_body = CreateSocialLink,
    responses((status = 201, body = SocialLinkResponse))
)]
pub async fn create_social_link(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: web::Json<CreateSocialLink>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::EditAnyContent).await?;
    state.site_state(site_id).await?;
    let body = body.into_inner();
    let mut errors = Vec::new();
    let given_platform = body.platform.clone().unwrap_or_else(|| platform_of(&body.url));
    let platform = check_platform(&given_platform).map_err(|e| errors.push(e)).ok();
    let url = check_url(&body.url).map_err(|e| errors.push(e)).ok();
    let (Some(platform), Some(url), true) = (platform, url, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let label = match body.label.as_deref() {
        Some(l) => required_text("label", l, 100).map_err(|e| ApiError::validation(vec![e]))?,
        None => platform.clone(),
    };
    let now = state.clock.now();
    let actor = principal.actor_id();
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
    let response = audit::Write {
        db: &state.db,
        at: now,
        action: Action::Create,
        entry: |m: &social_link::Model| audit_entry(&actor, Action::Create, m),
        before: Value::Null,
        after: None,
    }
    .run(row, |m| SocialLinkResponse::from(m), ApiError::from)
    .await?;
    Ok(HttpResponse::Created().json(response))
}

#[utoipa::path(
    put,
    path = "/social-links/{id}",
    tag = "Social links",
    params(("id" = Uuid, Path)),
    request_body = UpdateSocialLink,
    responses((status = 200, body = SocialLinkResponse))
)]
pub async fn update_social_link(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<UpdateSocialLink>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = find_live(&state, &principal, id.into_inner()).await?;
    let body = body.into_inner();
    let mut errors = Vec::new();
    let platform = body.platform.as_deref().and_then(|p| check_platform(p).map_err(|e| errors.push(e)).ok());
    let url = body.url.as_deref().and_then(|u| check_url(u).map_err(|e| errors.push(e)).ok());
    let label = body.label.as_deref().and_then(|l| required_text("label", l, 100).map_err(|e| errors.push(e)).ok());
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
    let actor = principal.actor_id();
    let after = audit::Write {
        db: &state.db,
        at: now,
        action: Action::Update,
        entry: |m: &social_link::Model| audit_entry(&actor, Action::Update, m),
        before: json!(before),
        after: None,
    }
    .run(row, |m| SocialLinkResponse::from(m), ApiError::from)
    .await?;
    Ok(HttpResponse::Ok().json(after))
}

#[utoipa::path(delete, path = "/social-links/{id}", tag = "Social links", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Moved to the trash")))]
pub async fn delete_social_link(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let current = find_live(&state, &principal, id.into_inner()).await?;
    let before = SocialLinkResponse::from(&current);
    let mut row: social_link::ActiveModel = current.into();
    row.is_deleted = Set(true);
    row.deleted_at = Set(Some(now));
    let actor = principal.actor_id();
    audit::Write {
        db: &state.db,
        at: now,
        action: Action::Delete,
        entry: |m: &social_link::Model| audit_entry(&actor, Action::Delete, m),
        before: json!(before),
        after: Some(json!({"is_deleted": true})),
    }
    .run(row, |_| (), ApiError::from)
    .await?;
    Ok(HttpResponse::NoContent().finish())
}
