//! Sites: reads of the site rows, and the site writes, each in one transaction
//! with its audit entry. Locales, settings, onboarding and the content reset
//! each have their own file.

pub mod locales;
pub mod onboarding;
pub mod reset;
pub mod settings;

use chrono::{DateTime, Utc};
use plinth_entities::{locale, site, site_member, site_setting};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder,
};
use serde_json::json;
use uuid::Uuid;

use super::model::{
    CreateSite, SiteContext, SiteFeatures, SiteLocaleInput, SiteModules, SiteResponse, SiteSuggestions, UpdateSite,
};
use crate::audit::{self, Action, Actor, AuditEntry};
use crate::auth::{Role, Visibility};
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError};
use crate::state::AppState;
use crate::values::{required_line, BaseUrl, Slug};

const NAME_MAX: usize = 200;
const DESCRIPTION_MAX: usize = 5_000;

/// Sites `visibility` lets the caller see, live or deleted.
pub async fn visible(state: &AppState, visibility: &Visibility, deleted: bool) -> ApiResult<Vec<site::Model>> {
    // A site being imported is listed once it is complete.
    let mut query = site::Entity::find()
        .filter(site::Column::ImportLeaseUntil.is_null())
        .order_by_asc(site::Column::CreatedAt)
        .order_by_asc(site::Column::Id);
    query = if deleted {
        query.filter(site::Column::DeletedAt.is_not_null())
    } else {
        query.filter(site::Column::DeletedAt.is_null())
    };
    if let Some(visible) = visibility.sites_condition() {
        query = query.filter(visible);
    }
    Ok(query.all(&state.db).await?)
}

/// What a front end needs to know about a site for a member with `role`.
pub async fn context(state: &AppState, site_id: Uuid, role: Role) -> ApiResult<SiteContext> {
    let site = state.site_state(site_id).await?;
    let member_count =
        site_member::Entity::find().filter(site_member::Column::SiteId.eq(site_id)).count(&state.db).await?;
    let s = &site.settings;
    Ok(SiteContext {
        member_count,
        current_user_role: role.as_str().to_string(),
        features: SiteFeatures {
            editorial_workflow: s.editorial_workflow_enabled,
            scheduling: true,
            versioning: s.module_legal_enabled,
            analytics: s.analytics_enabled,
        },
        suggestions: SiteSuggestions { show_team_workflow_prompt: member_count > 1 && !s.editorial_workflow_enabled },
        modules: SiteModules {
            blog: s.module_blog_enabled,
            pages: s.module_pages_enabled,
            portfolio: s.module_portfolio_enabled,
            legal: s.module_legal_enabled,
            documents: s.module_documents_enabled,
            ai: s.module_ai_enabled,
        },
    })
}

fn audit_entry(actor: &Actor, action: Action, site_id: Uuid) -> AuditEntry<'_> {
    AuditEntry { actor, action, entity_type: "site", entity_id: site_id.to_string(), site_id: Some(site_id) }
}

fn optional_url(field: &str, raw: Option<String>, errors: &mut Vec<FieldError>) -> Option<String> {
    let raw = raw.filter(|s| !s.trim().is_empty())?;
    match BaseUrl::parse(field, &raw) {
        Ok(url) => Some(url.into_inner()),
        Err(e) => {
            errors.push(e);
            None
        }
    }
}

fn description(raw: &str, errors: &mut Vec<FieldError>) -> String {
    if raw.chars().count() > DESCRIPTION_MAX {
        errors.push(FieldError::new(
            "description",
            ErrorCode::ValidationOutOfRange,
            format!("must be at most {DESCRIPTION_MAX} characters"),
        ));
    }
    raw.to_string()
}

/// Exactly one default among the requested locales, each listed once.
fn check_locales(locales: &[SiteLocaleInput]) -> ApiResult<()> {
    let defaults = locales.iter().filter(|l| l.is_default).count();
    if defaults != 1 {
        return Err(ApiError::new(
            ErrorCode::SiteCreateInvalidLocales,
            format!("exactly one locale must be the default; {defaults} are"),
        ));
    }
    let mut ids: Vec<String> = locales.iter().map(|l| l.locale_id.to_string().to_ascii_lowercase()).collect();
    ids.sort();
    ids.dedup();
    if ids.len() != locales.len() {
        return Err(ApiError::new(ErrorCode::SiteCreateInvalidLocales, "a locale is listed more than once"));
    }
    Ok(())
}

/// Who creates a site (checked by `sites::access::creator`): the actor of the
/// audit entry, and the user who becomes its owner (none for an API key).
#[derive(Clone, Debug)]
pub struct SiteCreator {
    pub actor: Actor,
    pub owner: Option<String>,
}

pub async fn create(
    db: &crate::db::Db,
    now: DateTime<Utc>,
    creator: &SiteCreator,
    body: CreateSite,
) -> ApiResult<site::Model> {
    let mut errors = Vec::new();
    let name = required_line("name", &body.name, NAME_MAX).map_err(|e| errors.push(e)).ok();
    let slug = match body.slug.trim() {
        "" => Slug::parse("slug", &crate::content::slugify(&body.name)),
        given => Slug::parse("slug", given),
    };
    let slug = slug.map_err(|e| errors.push(e)).ok();
    let description = description(&body.description, &mut errors);
    let base_url = optional_url("base_url", body.base_url, &mut errors);
    let logo_url = optional_url("logo_url", body.logo_url, &mut errors);
    let (Some(name), Some(slug), true) = (name, slug, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    if let Some(locales) = &body.locales {
        check_locales(locales)?;
    }

    audit::write(db, async |txn| {
        let id = Uuid::new_v4();
        let created = site::ActiveModel {
            id: Set(id),
            name: Set(name),
            slug: Set(slug.as_str().to_string()),
            description: Set(description),
            base_url: Set(base_url),
            is_active: Set(body.is_active.unwrap_or(true)),
            logo_url: Set(logo_url),
            favicon_url: Set(None),
            created_at: Set(now),
            updated_at: Set(now),
            deleted_at: Set(None),
            import_lease_until: Set(None),
        }
        .insert(txn)
        .await
        .map_err(on_constraint(Constraint::Unique, || ApiError::slug_taken("site", slug.as_str())))?;

        site_setting::ActiveModel { site_id: Set(id), overrides: Set(json!({})), updated_at: Set(now) }
            .insert(txn)
            .await?;
        crate::environments::seed(txn, now, id, created.base_url.clone()).await?;

        let requested = match body.locales {
            Some(list) => list,
            None => default_locales(txn).await?,
        };
        for (i, input) in requested.iter().enumerate() {
            locales::assign(txn, now, id, input, &format!("locales[{i}]")).await?;
        }

        if let Some(owner) = &creator.owner {
            site_member::ActiveModel {
                id: Set(Uuid::new_v4()),
                site_id: Set(id),
                idp_user_id: Set(owner.clone()),
                role: Set(Role::Owner),
                created_at: Set(now),
                updated_at: Set(now),
            }
            .insert(txn)
            .await?;
        }
        audit::record(txn, now, audit_entry(&creator.actor, Action::Create, id), &(), &SiteResponse::active(&created))
            .await?;
        Ok(created)
    })
    .await
}

/// A site created without `locales` gets English as its only, default locale.
async fn default_locales<C: ConnectionTrait>(db: &C) -> ApiResult<Vec<SiteLocaleInput>> {
    let english = locale::Entity::find().filter(locale::Column::Code.eq("en")).one(db).await?;
    Ok(english
        .map(|l| SiteLocaleInput { locale_id: l.id.into(), is_default: true, url_prefix: None })
        .into_iter()
        .collect())
}

pub async fn update(
    db: &crate::db::Db,
    now: DateTime<Utc>,
    actor: &Actor,
    site_id: Uuid,
    body: UpdateSite,
) -> ApiResult<site::Model> {
    let mut errors = Vec::new();
    let name = body.name.as_deref().map(|n| required_line("name", n, NAME_MAX).map_err(|e| errors.push(e)).ok());
    let slug = body.slug.as_deref().map(|s| Slug::parse("slug", s).map_err(|e| errors.push(e)).ok());
    let description = body.description.as_deref().map(|d| description(d, &mut errors));
    let base_url = body.base_url.map(|u| optional_url("base_url", u, &mut errors));
    let logo_url = body.logo_url.map(|u| optional_url("logo_url", u, &mut errors));
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }

    audit::write(db, async |txn| {
        let current = find_live(txn, site_id).await?;
        let before = SiteResponse::active(&current);
        let mut row: site::ActiveModel = current.into();
        if let Some(Some(name)) = name {
            row.name = Set(name);
        }
        let new_slug = slug.flatten().map(Slug::into_inner);
        if let Some(slug) = &new_slug {
            row.slug = Set(slug.clone());
        }
        if let Some(description) = description {
            row.description = Set(description);
        }
        if let Some(base_url) = base_url {
            row.base_url = Set(base_url);
        }
        if let Some(logo_url) = logo_url {
            row.logo_url = Set(logo_url);
        }
        if let Some(active) = body.is_active {
            row.is_active = Set(active);
        }
        row.updated_at = Set(now);
        let updated = row.update(txn).await.map_err(on_constraint(Constraint::Unique, || {
            ApiError::slug_taken("site", new_slug.as_deref().unwrap_or_default())
        }))?;
        audit::record(txn, now, audit_entry(actor, Action::Update, site_id), &before, &SiteResponse::active(&updated))
            .await?;
        Ok(updated)
    })
    .await
}

/// The site unless it does not exist or is soft-deleted.
async fn find_live<C: ConnectionTrait>(db: &C, site_id: Uuid) -> ApiResult<site::Model> {
    site::Entity::find_by_id(site_id)
        .filter(site::Column::DeletedAt.is_null())
        .filter(site::Column::ImportLeaseUntil.is_null())
        .one(db)
        .await?
        .ok_or_else(|| ApiError::not_found("site", site_id))
}

/// Soft delete: the row stays with `deleted_at` set for the restore window.
pub async fn soft_delete(db: &crate::db::Db, actor: &Actor, site_id: Uuid, now: DateTime<Utc>) -> ApiResult<()> {
    audit::write(db, async |txn| {
        let current = find_live(txn, site_id).await?;
        let before = SiteResponse::deleted(&current);
        let mut row: site::ActiveModel = current.into();
        row.deleted_at = Set(Some(now));
        let deleted = row.update(txn).await?;
        audit::record(txn, now, audit_entry(actor, Action::Delete, site_id), &before, &SiteResponse::deleted(&deleted))
            .await?;
        Ok(())
    })
    .await
}

/// How long a deleted site can be restored.
pub const RESTORE_WINDOW_DAYS: i64 = 30;

/// Brings a soft-deleted site back (content, settings, members and locales were
/// never removed), within the restore window.
pub async fn restore(db: &crate::db::Db, actor: &Actor, site_id: Uuid, now: DateTime<Utc>) -> ApiResult<site::Model> {
    audit::write(db, async |txn| {
        let current = site::Entity::find_by_id(site_id)
            .filter(site::Column::DeletedAt.is_not_null())
            .one(txn)
            .await?
            .ok_or_else(|| ApiError::not_found("site", site_id))?;
        let deleted_at = current.deleted_at.unwrap_or(now);
        if now - deleted_at > chrono::Duration::days(RESTORE_WINDOW_DAYS) {
            return Err(ApiError::new(
                ErrorCode::SiteRestoreExpired,
                format!("the site was deleted more than {RESTORE_WINDOW_DAYS} days ago and is queued for purge"),
            ));
        }
        let before = SiteResponse::deleted(&current);
        let mut row: site::ActiveModel = current.into();
        row.deleted_at = Set(None);
        row.updated_at = Set(now);
        let restored = row.update(txn).await?;
        audit::record(
            txn,
            now,
            audit_entry(actor, Action::Restore, site_id),
            &before,
            &SiteResponse::active(&restored),
        )
        .await?;
        Ok(restored)
    })
    .await
}
