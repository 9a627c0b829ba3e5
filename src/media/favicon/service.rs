//! Favicon packages: rendered on the MediaPool from one uploaded picture,
//! stored content-addressed under `favicons/<hash>/`, recorded per site; the
//! site's `favicon_url` becomes the 32×32 PNG.

use actix_multipart::Multipart;
use bytes::Bytes;
use futures_util::TryStreamExt;
use plinth_actors::media_pool::{ImageJob, ImageOutcome};
use plinth_entities::{site, site_favicon};
use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::audit::{self, Action, Actor, AuditEntry};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::media::files::url_of;
use crate::media::model::{FaviconPackage, FaviconVariant};
use crate::media::sniff::{self, Verdict};
use crate::media::variants::pool_error;
use crate::state::AppState;

/// The spec's limit for a favicon source.
pub const MAX_SOURCE_BYTES: usize = 10 * 1024 * 1024;
const ACCEPTED: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// The `file` part, whole (at most 10 MB), checked to be a PNG, JPEG, GIF or WebP.
pub async fn read_source(mut multipart: Multipart) -> ApiResult<Bytes> {
    let no_data = |why: String| {
        ApiError::new(ErrorCode::MediaUploadNoData, format!("send multipart/form-data with a `file` part ({why})"))
    };
    while let Some(mut field) = multipart.try_next().await.map_err(|e| no_data(e.to_string()))? {
        let is_file = field.name() == Some("file");
        let filename = field.content_disposition().and_then(|d| d.get_filename()).unwrap_or("favicon").to_string();
        let mut bytes = Vec::new();
        while let Some(chunk) = field.try_next().await.map_err(|e| no_data(e.to_string()))? {
            if bytes.len() + chunk.len() > MAX_SOURCE_BYTES {
                return Err(ApiError::new(ErrorCode::MediaUploadTooLarge, "a favicon source holds at most 10 MB"));
            }
            if is_file {
                bytes.extend_from_slice(&chunk);
            }
        }
        if !is_file {
            continue;
        }
        if bytes.is_empty() {
            return Err(ApiError::new(ErrorCode::MediaUploadEmpty, "the file is empty"));
        }
        return match sniff::judge(&bytes[..bytes.len().min(sniff::SNIFF_BYTES)], &filename) {
            Verdict::Allowed(mime) if ACCEPTED.contains(&mime) => Ok(Bytes::from(bytes)),
            Verdict::Allowed(mime) => Err(ApiError::new(
                ErrorCode::MediaUploadInvalidType,
                format!("a favicon is made from PNG, JPEG, GIF or WebP, not {mime}"),
            )),
            Verdict::Refused(why) => Err(ApiError::new(ErrorCode::MediaUploadInvalidType, why)),
        };
    }
    Err(no_data("no `file` part".into()))
}

fn head_snippet(variants: &[FaviconVariant]) -> String {
    let url = |name: &str| variants.iter().find(|v| v.name == name).map(|v| v.url.clone()).unwrap_or_default();
    [
        format!(r#"<link rel="icon" href="{}" sizes="48x48">"#, url("favicon.ico")),
        format!(r#"<link rel="icon" type="image/png" sizes="32x32" href="{}">"#, url("favicon-32x32.png")),
        format!(r#"<link rel="icon" type="image/png" sizes="16x16" href="{}">"#, url("favicon-16x16.png")),
        format!(r#"<link rel="apple-touch-icon" sizes="180x180" href="{}">"#, url("apple-touch-icon.png")),
    ]
    .join("\n")
}

pub async fn generate(state: &AppState, actor: &Actor, site_id: Uuid, source: Bytes) -> ApiResult<FaviconPackage> {
    let site_state = state.site_state(site_id).await?;
    let hash = hex::encode(&Sha256::digest(&source)[..16]);
    let ImageOutcome::Favicon { icons } = state
        .actors
        .media_pool
        .run(crate::tenant::current(), ImageJob::Favicon { bytes: source })
        .await
        .map_err(pool_error)?
    else {
        return Err(ApiError::internal("the MediaPool answered another job"));
    };
    let base = state.config.public_url();
    let mut variants = Vec::with_capacity(icons.len());
    for icon in icons {
        let key = format!("favicons/{hash}/{}", icon.name);
        state.storage.put(&key, icon.bytes).await.map_err(|e| {
            tracing::error!(error = %e, "storing a favicon failed");
            ApiError::new(ErrorCode::StorageError, "the favicon could not be stored")
        })?;
        variants.push(FaviconVariant {
            name: icon.name.to_string(),
            url: url_of(&base, &key),
            width: icon.width,
            height: icon.height,
        });
    }
    let package = FaviconPackage { head_snippet: head_snippet(&variants), variants };
    let favicon_url = package.variants.iter().find(|v| v.name == "favicon-32x32.png").map(|v| v.url.clone());
    let now = state.clock.now();
    let previous = site_favicon::Entity::find_by_id(site_id).one(&state.db).await?;
    audit::write(&state.db, async |txn| {
        let row = site_favicon::ActiveModel {
            site_id: Set(site_id),
            variants: Set(json!(package.variants)),
            head_snippet: Set(package.head_snippet.clone()),
            created_at: Set(now),
        };
        site_favicon::Entity::insert(row)
            .on_conflict(
                OnConflict::column(site_favicon::Column::SiteId)
                    .update_columns([
                        site_favicon::Column::Variants,
                        site_favicon::Column::HeadSnippet,
                        site_favicon::Column::CreatedAt,
                    ])
                    .to_owned(),
            )
            .exec(txn)
            .await?;
        site::Entity::update_many()
            .col_expr(site::Column::FaviconUrl, sea_orm::sea_query::Expr::value(favicon_url.clone()))
            .col_expr(site::Column::UpdatedAt, sea_orm::sea_query::Expr::value(now))
            .filter(site::Column::Id.eq(site_id))
            .exec(txn)
            .await?;
        let entry = AuditEntry {
            actor,
            action: Action::Update,
            entity_type: "site_favicon",
            entity_id: site_id.to_string(),
            site_id: Some(site_id),
        };
        let before = previous.as_ref().map_or(Value::Null, |p| p.variants.clone());
        audit::record(txn, now, entry, &before, &json!(package.variants)).await?;
        Ok(())
    })
    .await?;
    drop(site_state);
    // The previous package's files, unless the same picture was sent again.
    let old_dirs = previous
        .map(|p| p.variants)
        .and_then(|v| serde_json::from_value::<Vec<FaviconVariant>>(v).ok())
        .unwrap_or_default();
    if let Some(old) =
        old_dirs.first().and_then(|v| v.url.split("/favicons/").nth(1)).and_then(|rest| rest.split('/').next())
    {
        if old != hash {
            if let Err(e) = state.storage.delete_prefix(&format!("favicons/{old}")).await {
                tracing::warn!(error = %e, "could not remove an old favicon package");
            }
        }
    }
    Ok(package)
}

pub async fn get(state: &AppState, site_id: Uuid) -> ApiResult<FaviconPackage> {
    state.site_state(site_id).await?;
    let row = site_favicon::Entity::find_by_id(site_id)
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::new(ErrorCode::ResourceNotFound, "no favicon has been generated for this site"))?;
    let variants =
        serde_json::from_value(row.variants).map_err(|e| ApiError::internal(format!("stored favicon package: {e}")))?;
    Ok(FaviconPackage { variants, head_snippet: row.head_snippet })
}
