//! Sample posts for a fresh site: three Drafts in the site's default locale.

use actix_web::{web, HttpResponse};
use plinth_entities::{content, content_localization};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::{Capability, Principal};
use crate::content::model::{ContentResponse, CreateContent};
use crate::content::{events, read, write, ContentKind};
use crate::error::{ApiError, ApiResult, ErrorCode, Problem};
use crate::state::AppState;

const SAMPLES: [(&str, &str, &str); 3] = [
    (
        "Welcome to your new blog",
        "A first post to show how posts look.",
        "This is a sample post. Edit it, or delete all samples when you are ready.",
    ),
    (
        "Writing in several languages",
        "Posts can be translated per locale.",
        "Add a localization for each language your site speaks.",
    ),
    (
        "Publishing with a review step",
        "Turn on the editorial workflow to review before publishing.",
        "Submit a post for review; a reviewer approves it or asks for changes.",
    ),
];

#[derive(Serialize, ToSchema)]
pub struct DeletedSamples {
    pub deleted: u64,
}

/// Live sample posts of the site.
fn samples_of(site_id: Uuid) -> sea_orm::Select<content::Entity> {
    let samples = content::Entity::find()
        .filter(content::Column::Kind.eq(ContentKind::Blog.as_str()))
        .filter(content::Column::IsSample.eq(true))
        .filter(content::Column::IsDeleted.eq(false));
    read::on_site_only(samples, site_id)
}

#[utoipa::path(post, path = "/sites/{site_id}/blogs/seed", tag = "Blogs", params(("site_id" = Uuid, Path)),
    responses((status = 201, body = Vec<ContentResponse>, description = "Three sample Draft posts"),
        (status = "4XX", body = Problem, description = "BLOG_SAMPLE_EXISTS, BLOG_NO_DEFAULT_LOCALE")))]
pub async fn seed_blogs(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::CreateContent).await?;
    let site = state.site_state(site_id).await?;
    let locale_id = site.default_locale().map(|l| l.locale_id).ok_or_else(|| {
        ApiError::new(ErrorCode::BlogNoDefaultLocale, "the site has no default locale to write the samples in")
    })?;
    if samples_of(site_id).count(&state.db).await? > 0 {
        return Err(ApiError::new(ErrorCode::BlogSampleExists, "the site already has sample posts; delete them first"));
    }
    let mut checked = Vec::new();
    for (title, excerpt, body) in SAMPLES {
        let request = CreateContent {
            site_ids: vec![site_id],
            title: title.into(),
            excerpt: excerpt.into(),
            body: body.into(),
            ..CreateContent::default()
        };
        checked.push((title, excerpt, body, write::check_new(&state, &principal, ContentKind::Blog, request).await?));
    }
    let now = state.clock.now();
    let txn = crate::db::begin_write(&state.db).await?;
    let mut ids = Vec::new();
    for (title, excerpt, body, item) in checked {
        let id = write::insert(&txn, &principal, ContentKind::Blog, item, true).await?;
        content_localization::ActiveModel {
            id: Set(Uuid::new_v4()),
            content_id: Set(id),
            locale_id: Set(locale_id),
            title: Set(title.into()),
            excerpt: Set(excerpt.into()),
            body: Set(body.into()),
            meta_title: Set(title.into()),
            meta_description: Set(excerpt.into()),
            created_at: Set(now),
            updated_at: Set(now),
        }
        .insert(&txn)
        .await?;
        ids.push(id);
    }
    let mut created = Vec::new();
    let mut events = Vec::new();
    for id in ids {
        let item = write::audit_created(&txn, now, &principal, ContentKind::Blog, id).await?;
        events.extend(events::created_events(ContentKind::Blog, &item, now));
        created.push(item);
    }
    events::commit_with_events(&state, txn, events).await?;
    Ok(HttpResponse::Created().json(created))
}

#[utoipa::path(delete, path = "/sites/{site_id}/blogs/samples", tag = "Blogs", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = DeletedSamples)))]
pub async fn delete_sample_blogs(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let now = state.clock.now();
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::EditAnyContent).await?;
    let txn = crate::db::begin_write(&state.db).await?;
    let ids: Vec<Uuid> = samples_of(site_id).all(&txn).await?.into_iter().map(|m| m.id).collect();
    let deleted = write::soft_delete_many(&txn, now, &principal, ContentKind::Blog, &ids).await?;
    let events = deleted.iter().flat_map(|item| events::events_for(ContentKind::Blog, "deleted", item, now)).collect();
    events::commit_with_events(&state, txn, events).await?;
    Ok(HttpResponse::Ok().json(DeletedSamples { deleted: deleted.len() as u64 }))
}
