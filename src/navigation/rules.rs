//! What menus and items share: how lookups and audit entries name them, the
//! item tree, validation of links, labels and parents, events.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use plinth_entities::{content, content_site, locale, nav_item, nav_menu, site_locale};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::{json, Map, Value};
use uuid::Uuid;

use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::events::{DomainEvent, EventAction, EventName, Subject};
use crate::site_rows::SiteRow;
use crate::state::SiteLocaleResponse;
use crate::values::LocaleName;
use crate::values::{required_line, Slug};

use super::model::*;

pub(super) fn event(
    what: EventAction,
    at: DateTime<Utc>,
    site_id: Uuid,
    id: Uuid,
    title: &str,
    slug: Option<&str>,
) -> DomainEvent {
    DomainEvent {
        event: EventName::new(Subject::Navigation, what),
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

/// One item as a node without children; `slugs` names the linked items' slugs.
pub(super) fn flat_node(item: &nav_item::Model, locale: Option<&str>, slugs: &HashMap<Uuid, String>) -> MenuItemNode {
    let label =
        locale.and_then(|code| item.labels.get(code)).and_then(Value::as_str).unwrap_or(&item.label).to_string();
    let external = item.url.as_deref().filter(|url| url.starts_with("http://") || url.starts_with("https://"));
    MenuItemNode {
        id: item.id,
        menu_id: item.menu_id,
        parent_id: item.parent_id,
        title: label.clone(),
        label,
        labels: item.labels.clone(),
        url: item.url.clone(),
        external_url: external.map(str::to_string),
        content_id: item.content_id,
        page_id: item.content_id,
        page_slug: item.content_id.and_then(|id| slugs.get(&id).cloned()),
        icon: item.icon.clone(),
        open_in_new_tab: item.open_in_new_tab,
        display_order: item.display_order,
        children: Vec::new(),
    }
}

/// The slugs of the live content items the menu's items link to, in one query.
pub(super) async fn linked_slugs<C: ConnectionTrait>(
    db: &C,
    items: &[nav_item::Model],
) -> ApiResult<HashMap<Uuid, String>> {
    let ids: Vec<Uuid> = items.iter().filter_map(|i| i.content_id).collect();
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let found = content::Entity::find()
        .filter(content::Column::Id.is_in(ids))
        .filter(content::Column::IsDeleted.eq(false))
        .all(db)
        .await?;
    Ok(found.into_iter().map(|c| (c.id, c.slug)).collect())
}

/// Each item's parent, by item: what a depth check walks.
pub(super) fn parents(items: &[nav_item::Model]) -> HashMap<Uuid, Option<Uuid>> {
    items.iter().map(|i| (i.id, i.parent_id)).collect()
}

/// How deep the deepest item sits (1 for items at the top; 0 for none), or
/// `None` when some item sits under itself. Parents outside the map count as
/// the top.
pub(super) fn depth(parent_of: &HashMap<Uuid, Option<Uuid>>) -> Option<i32> {
    let limit = i32::try_from(parent_of.len()).unwrap_or(i32::MAX);
    let mut deepest = 0;
    for parent in parent_of.values() {
        let mut levels = 1;
        let mut at = *parent;
        while let Some(parent) = at.filter(|p| parent_of.contains_key(p)) {
            levels += 1;
            if levels > limit {
                return None; // more levels than items: a cycle
            }
            at = parent_of[&parent];
        }
        deepest = deepest.max(levels);
    }
    Some(deepest)
}

/// The items, after a change, must fit in the menu's levels.
pub(super) fn check_depth(parent_of: &HashMap<Uuid, Option<Uuid>>, max_depth: i32) -> ApiResult<()> {
    let Some(deepest) = depth(parent_of) else {
        return Err(ApiError::validation(vec![FieldError::new(
            "parent_id",
            ErrorCode::ValidationInvalidFormat,
            "an item cannot sit under itself",
        )]));
    };
    if deepest > max_depth {
        return Err(ApiError::validation(vec![FieldError::new(
            "parent_id",
            ErrorCode::ValidationOutOfRange,
            format!("the menu holds {max_depth} levels of items; this makes {deepest}"),
        )]));
    }
    Ok(())
}

/// Localized texts given by locale (`[{locale_id, title}]`, a UUID or a
/// code), as `{"de": …}` by the site's locale codes; each a line of 1 to 100
/// characters.
pub(super) fn texts_by_code<'a>(
    field: &str,
    given: impl Iterator<Item = (&'a LocaleName, &'a str)>,
    locales: &[SiteLocaleResponse],
) -> ApiResult<Map<String, Value>> {
    let mut texts = Map::new();
    let mut errors = Vec::new();
    for (i, (locale_id, text)) in given.enumerate() {
        // One per locale of the site at most: a longer list is refused
        // without reading the rest of it.
        if i >= locales.len() {
            let detail = format!("at most one per locale of the site ({})", locales.len());
            errors.push(FieldError::new("localizations", ErrorCode::ValidationOutOfRange, detail));
            break;
        }
        let at = format!("localizations[{i}]");
        match locales.iter().find(|l| locale_id.names(l.locale_id, &l.code)) {
            None => {
                let codes: Vec<&str> = locales.iter().map(|l| l.code.as_str()).collect();
                let detail = crate::values::not_among(locale_id, &codes);
                errors.push(FieldError::new(format!("{at}.locale_id"), ErrorCode::ValidationInvalidFormat, detail))
            }
            Some(locale) => match required_line(&format!("{at}.{field}"), text, 100) {
                Ok(line) => {
                    texts.insert(locale.code.clone(), Value::String(line));
                }
                Err(e) => errors.push(e),
            },
        }
    }
    if errors.is_empty() {
        Ok(texts)
    } else {
        Err(ApiError::validation(errors))
    }
}

/// An icon name: a slug of at most 50 characters, as the origin service allows.
pub(super) fn check_icon(raw: &str) -> Result<String, FieldError> {
    let icon = Slug::parse("icon", raw.trim())?.into_inner();
    if icon.len() > 50 {
        return Err(FieldError::new("icon", ErrorCode::ValidationOutOfRange, "must be at most 50 characters"));
    }
    Ok(icon)
}

/// The tree: items whose parent is not a live item of the menu sit at the top;
/// `slugs` names the linked items' slugs (`page_slug`).
pub(super) fn tree(
    items: &[nav_item::Model],
    locale: Option<&str>,
    slugs: &HashMap<Uuid, String>,
) -> Vec<MenuItemNode> {
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
        slugs: &HashMap<Uuid, String>,
    ) -> Vec<MenuItemNode> {
        children
            .get(&parent)
            .map(|items| {
                items
                    .iter()
                    .map(|item| MenuItemNode {
                        children: build(Some(item.id), children, locale, slugs),
                        ..flat_node(item, locale, slugs)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
    build(None, &children, locale, slugs)
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
            icon: None,
            open_in_new_tab: false,
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
        let nodes = tree(&items, Some("de"), &HashMap::new());
        assert_eq!(nodes.len(), 1);
        assert_eq!(nodes[0].children[0].children[0].label, "Eintrag 3");
        assert!(check_parent(&items, Some(a), c).is_err(), "a under its own grandchild");
        assert!(check_parent(&items, Some(c), a).is_ok());
        assert_eq!(subtree(&items, b), vec![b, c]);
        assert_eq!(depth(&parents(&items)), Some(3));
        assert!(check_depth(&parents(&items), 2).is_err() && check_depth(&parents(&items), 3).is_ok());
        let cycle = parents(&[item(a, Some(b), 1), item(b, Some(a), 2)]);
        assert_eq!(depth(&cycle), None, "a cycle is found, and the walk ends");
        assert!(check_depth(&cycle, 10).is_err());
    }
}
