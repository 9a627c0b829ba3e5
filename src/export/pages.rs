//! The pages an export reads: at most [`PAGE`] rows each, by primary
//! key after the last one of the page before (keyset paging: every page is an
//! index range, however far into the site), with what belongs to those rows.

use std::collections::HashMap;

use plinth_entities::{
    content, content_category, content_localization, content_site, content_tag, content_template, media_file,
    media_metadata, media_site, nav_item, nav_menu, term, term_localization,
};
use sea_orm::sea_query::Query;
use sea_orm::{ColumnTrait, DatabaseConnection, DbErr, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

use super::format::{Content, Media, MediaText, Menu, Placement, Taxonomy, Term, TermText};

/// Rows read per query.
pub const PAGE: u64 = 1_000;

/// The name of a media file's bytes in the archive.
pub fn media_entry(file: &media_file::Model) -> Option<String> {
    let (key, checksum) = (file.storage_key.as_ref()?, file.checksum.as_ref()?);
    Some(format!("media/{checksum}.{}", key.rsplit('.').next().unwrap_or("bin")))
}

type Codes<'c> = dyn Fn(Uuid) -> Option<String> + 'c;

fn group<T, K: std::hash::Hash + Eq>(rows: Vec<T>, key: impl Fn(&T) -> K) -> HashMap<K, Vec<T>> {
    let mut groups: HashMap<K, Vec<T>> = HashMap::new();
    for row in rows {
        groups.entry(key(&row)).or_default().push(row);
    }
    groups
}

/// The site's live media records after `after`, by id.
pub async fn media(
    db: &DatabaseConnection,
    site_id: Uuid,
    after: Option<Uuid>,
) -> Result<Vec<media_file::Model>, DbErr> {
    let on_site = Query::select()
        .column(media_site::Column::MediaId)
        .from(media_site::Entity)
        .and_where(media_site::Column::SiteId.eq(site_id))
        .to_owned();
    let mut query = media_file::Entity::find()
        .filter(media_file::Column::IsDeleted.eq(false))
        .filter(media_file::Column::Id.in_subquery(on_site));
    if let Some(after) = after {
        query = query.filter(media_file::Column::Id.gt(after));
    }
    query.order_by_asc(media_file::Column::Id).limit(PAGE).all(db).await
}

/// The same with their localized texts and entry names.
pub async fn media_items(
    db: &DatabaseConnection,
    site_id: Uuid,
    after: Option<Uuid>,
    code: &Codes<'_>,
) -> Result<Vec<Media>, DbErr> {
    let files = media(db, site_id, after).await?;
    let ids: Vec<Uuid> = files.iter().map(|m| m.id).collect();
    let texts = media_metadata::Entity::find()
        .filter(media_metadata::Column::MediaId.is_in(ids))
        .order_by_asc(media_metadata::Column::CreatedAt)
        .all(db)
        .await?;
    let mut texts = group(texts, |t| t.media_id);
    Ok(files
        .into_iter()
        .map(|file| {
            let metadata =
                texts.remove(&file.id).unwrap_or_default().into_iter().filter_map(|t| MediaText::of(t, code)).collect();
            Media { entry: media_entry(&file), file, metadata }
        })
        .collect())
}

pub async fn terms(
    db: &DatabaseConnection,
    site_id: Uuid,
    taxonomy: Taxonomy,
    after: Option<Uuid>,
    code: &Codes<'_>,
) -> Result<Vec<Term>, DbErr> {
    let mut query = term::Entity::find()
        .filter(term::Column::SiteId.eq(site_id))
        .filter(term::Column::Taxonomy.eq(taxonomy.as_str()));
    if let Some(after) = after {
        query = query.filter(term::Column::Id.gt(after));
    }
    let rows = query.order_by_asc(term::Column::Id).limit(PAGE).all(db).await?;
    let ids: Vec<Uuid> = rows.iter().map(|t| t.id).collect();
    let texts = term_localization::Entity::find()
        .filter(term_localization::Column::TermId.is_in(ids))
        .order_by_asc(term_localization::Column::CreatedAt)
        .all(db)
        .await?;
    let mut texts = group(texts, |t| t.term_id);
    Ok(rows
        .into_iter()
        .map(|t| Term {
            localizations: texts
                .remove(&t.id)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|l| TermText::of(l, code))
                .collect(),
            id: t.id,
            slug: t.slug,
            name: t.name,
            description: t.description,
            created_at: t.created_at,
            updated_at: t.updated_at,
        })
        .collect())
}

/// The site's live blogs or pages placed after `after` (by content id), and
/// the last id the page looked at (the next page starts after it, whether or
/// not that content is in the trash).
pub async fn contents(
    db: &DatabaseConnection,
    site_id: Uuid,
    kind: &str,
    after: Option<Uuid>,
    code: &Codes<'_>,
) -> Result<(Vec<Content>, Option<Uuid>), DbErr> {
    let mut query = content_site::Entity::find()
        .filter(content_site::Column::SiteId.eq(site_id))
        .filter(content_site::Column::Kind.eq(kind));
    if let Some(after) = after {
        query = query.filter(content_site::Column::ContentId.gt(after));
    }
    let placements = query.order_by_asc(content_site::Column::ContentId).limit(PAGE).all(db).await?;
    let Some(last) = placements.last().map(|p| p.content_id) else { return Ok((Vec::new(), None)) };
    let ids: Vec<Uuid> = placements.iter().map(|p| p.content_id).collect();
    let mut rows: HashMap<Uuid, content::Model> = content::Entity::find()
        .filter(content::Column::Id.is_in(ids.clone()))
        .filter(content::Column::IsDeleted.eq(false))
        .all(db)
        .await?
        .into_iter()
        .map(|c| (c.id, c))
        .collect();
    // Orders that survive an import (ids do not): what a re-export compares.
    let texts = content_localization::Entity::find()
        .filter(content_localization::Column::ContentId.is_in(ids.clone()))
        .order_by_asc(content_localization::Column::CreatedAt)
        .order_by_asc(content_localization::Column::Title)
        .all(db)
        .await?;
    let mut texts = group(texts, |t| t.content_id);
    let categories =
        content_category::Entity::find().filter(content_category::Column::ContentId.is_in(ids.clone())).all(db).await?;
    let mut categories = group(categories, |c| c.content_id);
    let tags = content_tag::Entity::find().filter(content_tag::Column::ContentId.is_in(ids)).all(db).await?;
    let mut tags = group(tags, |t| t.content_id);
    let items = placements
        .into_iter()
        .filter_map(|p| {
            let content = rows.remove(&p.content_id)?;
            Some(Content::of(
                content,
                Placement { slug: p.slug, route: p.route },
                texts.remove(&p.content_id).unwrap_or_default(),
                categories.remove(&p.content_id).unwrap_or_default(),
                tags.remove(&p.content_id).unwrap_or_default(),
                code,
            ))
        })
        .collect();
    Ok((items, Some(last)))
}

/// The site's live menus after `after`, each with its live items.
pub async fn menus(db: &DatabaseConnection, site_id: Uuid, after: Option<Uuid>) -> Result<Vec<Menu>, DbErr> {
    let mut query = nav_menu::Entity::find()
        .filter(nav_menu::Column::SiteId.eq(site_id))
        .filter(nav_menu::Column::IsDeleted.eq(false));
    if let Some(after) = after {
        query = query.filter(nav_menu::Column::Id.gt(after));
    }
    let menus = query.order_by_asc(nav_menu::Column::Id).limit(PAGE).all(db).await?;
    let ids: Vec<Uuid> = menus.iter().map(|m| m.id).collect();
    let items = nav_item::Entity::find()
        .filter(nav_item::Column::MenuId.is_in(ids))
        .filter(nav_item::Column::IsDeleted.eq(false))
        .order_by_asc(nav_item::Column::DisplayOrder)
        .order_by_asc(nav_item::Column::Label)
        .all(db)
        .await?;
    let mut items = group(items, |i| i.menu_id);
    Ok(menus.into_iter().map(|menu| Menu { items: items.remove(&menu.id).unwrap_or_default(), menu }).collect())
}

/// The site's content templates after `after`, by id (`PAGE` at a time).
pub async fn templates(
    db: &DatabaseConnection,
    site_id: Uuid,
    after: Option<Uuid>,
) -> Result<Vec<content_template::Model>, DbErr> {
    let mut query = content_template::Entity::find().filter(content_template::Column::SiteId.eq(site_id));
    if let Some(after) = after {
        query = query.filter(content_template::Column::Id.gt(after));
    }
    query.order_by_asc(content_template::Column::Id).limit(PAGE).all(db).await
}
