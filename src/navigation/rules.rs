//! What menus and items share: how lookups and audit entries name them, the
//! item tree, validation of links, labels and parents, events.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use plinth_entities::{content, content_site, locale, nav_item, nav_menu, site_locale};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::{json, Map, Value};
use uuid::Uuid;

use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::events::DomainEvent;
use crate::site_rows::SiteRow;

use super::model::*;

pub(super) fn event(
    what: &str,
    at: DateTime<Utc>,
    site_id: Uuid,
    id: Uuid,
    title: &str,
    slug: Option<&str>,
) -> DomainEvent {
    DomainEvent {
        event: format!("navigation.{what}"),
        timestamp: at,
        site_id,
        data: json!({"id": id, "title": title, "slug": slug, "status": null}),
    }
}

impl SiteRow for nav_menu::Model {
    type Table = nav_menu::Entity;
    const KIND: &'static str = "menu";
    const IS_DELETED: Option<nav_menu::Column> = Some(nav_menu::Column::IsDeleted);

    fn id(&self) -> Uuid {
        self.id
    }

    fn site_id(&self) -> Uuid {
        self.site_id
    }
}

impl SiteRow for nav_item::Model {
    type Table = nav_item::Entity;
    const KIND: &'static str = "menu_item";
    const IS_DELETED: Option<nav_item::Column> = Some(nav_item::Column::IsDeleted);

    fn id(&self) -> Uuid {
        self.id
    }

    fn site_id(&self) -> Uuid {
        self.site_id
    }
}

pub(super) fn slug_taken(slug: &str) -> ApiError {
    ApiError::slug_taken("menu", slug)
}

/// Live items of a menu.
pub(super) async fn live_items<C: ConnectionTrait>(db: &C, menu_id: Uuid) -> ApiResult<Vec<nav_item::Model>> {
    Ok(nav_item::Entity::find()
        .filter(nav_item::Column::MenuId.eq(menu_id))
        .filter(nav_item::Column::IsDeleted.eq(false))
        .order_by_asc(nav_item::Column::DisplayOrder)
        .order_by_asc(nav_item::Column::CreatedAt)
        .order_by_asc(nav_item::Column::Id)
        .all(db)
        .await?)
}

/// The tree: items whose parent is not a live item of the menu sit at the top.
pub(super) fn tree(items: &[nav_item::Model], locale: Option<&str>) -> Vec<MenuItemNode> {
    let live: std::collections::HashSet<Uuid> = items.iter().map(|i| i.id).collect();
    let mut children: HashMap<Option<Uuid>, Vec<&nav_item::Model>> = HashMap::new();
    for item in items {
        let parent = item.parent_id.filter(|p| live.contains(p));
        children.entry(parent).or_default().push(item);
    }
    fn build(
        parent: Option<Uuid>,
        children: &HashMap<Option<Uuid>, Vec<&nav_item::Model>>,
        locale: Option<&str>,
    ) -> Vec<MenuItemNode> {
        children
            .get(&parent)
            .map(|items| {
                items
                    .iter()
                    .map(|item| MenuItemNode {
                        id: item.id,
                        parent_id: item.parent_id,
                        label: locale
                            .and_then(|code| item.labels.get(code))
                            .and_then(Value::as_str)
                            .unwrap_or(&item.label)
                            .to_string(),
                        labels: item.labels.clone(),
                        url: item.url.clone(),
                        content_id: item.content_id,
                        display_order: item.display_order,
                        children: build(Some(item.id), children, locale),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
    build(None, &children, locale)
}

pub(super) fn check_url(raw: &str) -> Result<String, FieldError> {
    crate::values::link_target("url", raw, true)
}

/// Labels keyed by codes of locales assigned to the site, each a non-empty string.
pub(super) async fn check_labels<C: ConnectionTrait>(
    db: &C,
    site_id: Uuid,
    labels: &Map<String, Value>,
) -> ApiResult<Value> {
    let codes: Vec<String> = site_locale::Entity::find()
        .filter(site_locale::Column::SiteId.eq(site_id))
        .find_also_related(locale::Entity)
        .all(db)
        .await?
        .into_iter()
        .filter_map(|(_, l)| l.map(|l| l.code))
        .collect();
    let mut errors = Vec::new();
    for (code, label) in labels {
        if !codes.contains(code) {
            errors.push(FieldError::new(
                format!("labels.{code}"),
                ErrorCode::ValidationInvalidFormat,
                "not a locale of the site",
            ));
        }
        if label.as_str().is_none_or(|l| l.trim().is_empty()) {
            errors.push(FieldError::new(
                format!("labels.{code}"),
                ErrorCode::ValidationRequiredField,
                "must be a non-empty string",
            ));
        }
    }
    if errors.is_empty() {
        Ok(Value::Object(labels.clone()))
    } else {
        Err(ApiError::validation(errors))
    }
}

/// A content target must be a live item on the menu's site.
pub(super) async fn check_content<C: ConnectionTrait>(db: &C, site_id: Uuid, content_id: Uuid) -> ApiResult<()> {
    let on_site = content_site::Entity::find()
        .filter(content_site::Column::ContentId.eq(content_id))
        .filter(content_site::Column::SiteId.eq(site_id))
        .one(db)
        .await?
        .is_some();
    let live =
        content::Entity::find_by_id(content_id).filter(content::Column::IsDeleted.eq(false)).one(db).await?.is_some();
    if on_site && live {
        Ok(())
    } else {
        Err(ApiError::validation(vec![FieldError::new(
            "content_id",
            ErrorCode::ValidationInvalidFormat,
            "no such content on the menu's site",
        )]))
    }
}

/// The parent must be a live item of the same menu, and not the item itself or
/// one of its descendants.
pub(super) fn check_parent(items: &[nav_item::Model], item_id: Option<Uuid>, parent_id: Uuid) -> ApiResult<()> {
    let by_id: HashMap<Uuid, &nav_item::Model> = items.iter().map(|i| (i.id, i)).collect();
    if !by_id.contains_key(&parent_id) {
        return Err(ApiError::validation(vec![FieldError::new(
            "parent_id",
            ErrorCode::ValidationInvalidFormat,
            "not an item of this menu",
        )]));
    }
    let mut at = Some(parent_id);
    while let Some(current) = at {
        if Some(current) == item_id {
            return Err(ApiError::validation(vec![FieldError::new(
                "parent_id",
                ErrorCode::ValidationInvalidFormat,
                "an item cannot sit under itself",
            )]));
        }
        at = by_id.get(&current).and_then(|i| i.parent_id);
    }
    Ok(())
}

/// An item and everything under it.
pub(super) fn subtree(items: &[nav_item::Model], root: Uuid) -> Vec<Uuid> {
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        let parent = out[i];
        out.extend(items.iter().filter(|item| item.parent_id == Some(parent)).map(|item| item.id));
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: Uuid, parent: Option<Uuid>, order: i32) -> nav_item::Model {
        nav_item::Model {
            id,
            menu_id: Uuid::nil(),
            site_id: Uuid::nil(),
            parent_id: parent,
            label: format!("item {order}"),
            labels: json!({"de": format!("Eintrag {order}")}),
            url: Some("/".into()),
            content_id: None,
            display_order: order,
            created_at: Utc::now(),
            updated_at: Utc::now(),
            deleted_at: None,
            is_deleted: false,
        }
    }

    #[test]
    fn trees_nest_localize_and_refuse_cycles() {
        let (a, b, c) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let items = vec![item(a, None, 1), item(b, Some(a), 2), item(c, Some(b), 3)];
        let nodes = tree(&items, Some("de"));
        assert_eq!(nodes.len(), 1);
        assert_eq!(nodes[0].children[0].children[0].label, "Eintrag 3");
        assert!(check_parent(&items, Some(a), c).is_err(), "a under its own grandchild");
        assert!(check_parent(&items, Some(c), a).is_ok());
        assert_eq!(subtree(&items, b), vec![b, c]);
    }
}
