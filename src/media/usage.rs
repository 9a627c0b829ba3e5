//! Where a file is used: content cover and header images, page section
//! covers and project galleries (two queries), and the sites' logo and favicon
//! by URL (one query), never one query per reference.

use plinth_entities::{content, content_site, site};
use sea_orm::sea_query::{Expr, Query};
use sea_orm::{ColumnTrait, Condition, EntityTrait, ExprTrait, QueryFilter, QueryOrder};
use serde_json::Value;

use super::model::{MediaReference, MediaUsage};
use super::records::{response, Media};
use crate::error::ApiResult;
use crate::state::AppState;

/// The references to the file on its sites.
pub async fn usage(state: &AppState, media: &Media) -> ApiResult<MediaUsage> {
    let id = media.file.id;
    let on_sites = Query::select()
        .column(content_site::Column::ContentId)
        .from(content_site::Entity)
        .and_where(content_site::Column::SiteId.is_in(media.site_ids.clone()))
        .to_owned();
    let id_text = id.to_string();
    let candidates = content::Entity::find()
        .filter(content::Column::IsDeleted.eq(false))
        .filter(content::Column::Id.in_subquery(on_sites))
        .filter(
            Condition::any()
                .add(content::Column::CoverImageId.eq(id))
                .add(content::Column::HeaderImageId.eq(id))
                .add(Expr::col(content::Column::Fields).cast_as("TEXT").like(format!("%{id_text}%"))),
        )
        .order_by_asc(content::Column::CreatedAt)
        .all(&state.db)
        .await?;
    let mut references = Vec::new();
    for item in candidates {
        let mut add = |usage: &str| {
            references.push(MediaReference {
                content_type: item.kind.as_str().to_string(),
                content_id: item.id,
                title: item.title.clone(),
                usage: usage.to_string(),
            })
        };
        if item.cover_image_id == Some(id) {
            add("cover_image");
        }
        if item.header_image_id == Some(id) {
            add("header_image");
        }
        let sections = item.fields.get("sections").and_then(Value::as_array).map_or(0, |sections| {
            sections
                .iter()
                .filter(|s| s.get("cover_image_id").and_then(Value::as_str) == Some(id_text.as_str()))
                .count()
        });
        for _ in 0..sections {
            add("section_cover");
        }
        let in_gallery = item
            .fields
            .get("media_ids")
            .and_then(Value::as_array)
            .is_some_and(|ids| ids.iter().any(|v| v.as_str() == Some(id_text.as_str())));
        if in_gallery {
            add("attachment");
        }
    }
    let urls = urls_of(state, media).await?;
    if !urls.is_empty() {
        let sites = site::Entity::find()
            .filter(site::Column::Id.is_in(media.site_ids.clone()))
            .filter(
                Condition::any()
                    .add(site::Column::LogoUrl.is_in(urls.clone()))
                    .add(site::Column::FaviconUrl.is_in(urls.clone())),
            )
            .all(&state.db)
            .await?;
        for s in sites {
            for (usage, value) in [("logo", &s.logo_url), ("favicon", &s.favicon_url)] {
                if value.as_ref().is_some_and(|v| urls.contains(v)) {
                    references.push(MediaReference {
                        content_type: "site".into(),
                        content_id: s.id,
                        title: s.name.clone(),
                        usage: usage.into(),
                    });
                }
            }
        }
    }
    Ok(MediaUsage { usage_count: references.len() as u64, references })
}

/// Every URL the file is reachable at: itself and its variants.
async fn urls_of(state: &AppState, media: &Media) -> ApiResult<Vec<String>> {
    let response = response(state, media.file.clone()).await?;
    let mut urls: Vec<String> = response.variants.into_iter().map(|v| v.public_url).collect();
    urls.extend(response.public_url);
    Ok(urls)
}
