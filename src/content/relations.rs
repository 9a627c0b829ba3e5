//! Loading what belongs to content items (sites, categories, tags) in batches:
//! three queries for any number of items, never one per item.

use std::collections::HashMap;

use plinth_entities::{content, content_category, content_site, content_tag};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

use super::model::{ContentListItem, ContentResponse};
use crate::error::ApiResult;

#[derive(Clone, Debug, Default)]
pub struct Relations {
    pub site_ids: Vec<Uuid>,
    pub route: Option<String>,
    pub category_ids: Vec<Uuid>,
    pub primary_category_id: Option<Uuid>,
    pub tag_ids: Vec<Uuid>,
}

/// Sites (always) and taxonomy (when asked) of every item in `ids`.
pub async fn load<C: ConnectionTrait>(
    db: &C,
    ids: &[Uuid],
    with_taxonomy: bool,
) -> ApiResult<HashMap<Uuid, Relations>> {
    let mut out: HashMap<Uuid, Relations> = ids.iter().map(|id| (*id, Relations::default())).collect();
    if ids.is_empty() {
        return Ok(out);
    }
    let sites =
        content_site::Entity::find().filter(content_site::Column::ContentId.is_in(ids.to_vec())).all(db).await?;
    for row in sites {
        if let Some(r) = out.get_mut(&row.content_id) {
            r.site_ids.push(row.site_id);
            r.route = r.route.take().or(row.route);
        }
    }
    if with_taxonomy {
        let categories = content_category::Entity::find()
            .filter(content_category::Column::ContentId.is_in(ids.to_vec()))
            .all(db)
            .await?;
        for row in categories {
            if let Some(r) = out.get_mut(&row.content_id) {
                r.category_ids.push(row.category_id);
                if row.is_primary {
                    r.primary_category_id = Some(row.category_id);
                }
            }
        }
        let tags =
            content_tag::Entity::find().filter(content_tag::Column::ContentId.is_in(ids.to_vec())).all(db).await?;
        for row in tags {
            if let Some(r) = out.get_mut(&row.content_id) {
                r.tag_ids.push(row.tag_id);
            }
        }
    }
    for r in out.values_mut() {
        r.site_ids.sort();
        r.category_ids.sort();
        r.tag_ids.sort();
    }
    Ok(out)
}

pub fn response(model: &content::Model, relations: Relations) -> ContentResponse {
    let kind_fields = super::model::kind_fields(model, relations.route, true);
    ContentResponse {
        id: model.id,
        content_id: model.id,
        site_ids: relations.site_ids,
        slug: model.slug.clone(),
        title: model.title.clone(),
        excerpt: model.excerpt.clone(),
        body: model.body.clone(),
        status: model.status,
        author: model.author.clone(),
        publish_start: model.publish_start,
        publish_end: model.publish_end,
        published_date: model.published_at,
        cover_image_id: model.cover_image_id,
        header_image_id: model.header_image_id,
        is_featured: model.is_featured,
        is_sample: model.is_sample,
        category_ids: relations.category_ids,
        primary_category_id: relations.primary_category_id,
        tag_ids: relations.tag_ids,
        kind_fields,
        locale: None,
        subtitle: None,
        meta_title: None,
        meta_description: None,
        media: None,
        created_at: model.created_at,
        updated_at: model.updated_at,
    }
}

/// List items for a page of models, with their sites: one extra query.
pub async fn list_items<C: ConnectionTrait>(db: &C, models: &[content::Model]) -> ApiResult<Vec<ContentListItem>> {
    let ids: Vec<Uuid> = models.iter().map(|m| m.id).collect();
    let mut relations = load(db, &ids, false).await?;
    Ok(models
        .iter()
        .map(|m| {
            let Relations { site_ids, route, .. } = relations.remove(&m.id).unwrap_or_default();
            ContentListItem::new(m, site_ids, route)
        })
        .collect())
}
