//! Menu and menu-item endpoints.

use std::collections::HashMap;

use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use plinth_entities::{content, content_site, locale, nav_item, nav_menu, site_locale};
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::app::AppState;
use crate::audit::{self, Action, AuditEntry};
use crate::auth::{Capability, Principal};
use crate::content::write::commit_with_events;
use crate::error::{on_constraint, ApiError, ApiResult, Constraint, ErrorCode, FieldError, Problem};
use crate::events::DomainEvent;
use crate::values::{double_option, required_text, Slug};

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MenuResponse {
    pub id: Uuid,
    pub site_id: Uuid,
    pub name: String,
    pub slug: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&nav_menu::Model> for MenuResponse {
    fn from(m: &nav_menu::Model) -> Self {
        Self {
            id: m.id,
            site_id: m.site_id,
            name: m.name.clone(),
            slug: m.slug.clone(),
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

/// An item with its children, in display order.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MenuItemNode {
    pub id: Uuid,
    pub parent_id: Option<Uuid>,
    /// In the requested locale when it has a label there.
    pub label: String,
    /// Every localized label by locale code.
    #[schema(value_type = Object)]
    pub labels: Value,
    pub url: Option<String>,
    pub content_id: Option<Uuid>,
    pub display_order: i32,
    #[schema(no_recursion)]
    pub children: Vec<MenuItemNode>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MenuDetail {
    #[serde(flatten)]
    pub menu: MenuResponse,
    pub items: Vec<MenuItemNode>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateMenu {
    /// The slug, or `Menu`, when omitted.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub name: String,
    /// From the name when omitted.
    pub slug: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateMenu {
    pub name: Option<String>,
    pub slug: Option<String>,
}

/// Exactly one of `url` and `content_id`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct CreateMenuItem {
    /// The first entry of `localizations`, else the URL, when omitted.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub label: String,
    /// `{"de": "Über uns"}`: codes of locales assigned to the site.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub labels: Map<String, Value>,
    /// An http(s) URL or a path on the site.
    #[serde(alias = "external_url")]
    pub url: Option<String>,
    /// A content item on the menu's site.
    #[serde(alias = "page_id")]
    pub content_id: Option<Uuid>,
    pub parent_id: Option<Uuid>,
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    pub display_order: i32,
    /// `[{locale_id, title}]`, as the service the spec was written from sends
    /// them: the first title becomes the label when `label` is omitted.
    #[serde(default, deserialize_with = "crate::values::null_as_default")]
    #[schema(value_type = Vec<Object>)]
    pub localizations: Vec<Value>,
}

/// Every field optional; `null` clears `parent_id`. Giving `url` clears
/// `content_id` and the other way round.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateMenuItem {
    pub label: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub labels: Option<Map<String, Value>>,
    #[serde(alias = "external_url")]
    pub url: Option<String>,
    #[serde(alias = "page_id")]
    pub content_id: Option<Uuid>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>)]
    pub parent_id: Option<Option<Uuid>>,
    pub display_order: Option<i32>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MenuQuery {
    /// A locale code: labels in that language where the item has one.
    pub locale: Option<String>,
}

fn event(what: &str, at: DateTime<Utc>, site_id: Uuid, id: Uuid, title: &str, slug: Option<&str>) -> DomainEvent {
    DomainEvent {
        event: format!("navigation.{what}"),
        timestamp: at,
        site_id,
        data: json!({"id": id, "title": title, "slug": slug, "status": null}),
    }
}

fn menu_entry<'a>(actor: &'a str, action: Action, menu: &nav_menu::Model) -> AuditEntry<'a> {
    AuditEntry { actor, action, entity_type: "menu", entity_id: menu.id.to_string(), site_id: Some(menu.site_id) }
}

fn item_entry<'a>(actor: &'a str, action: Action, item: &nav_item::Model) -> AuditEntry<'a> {
    AuditEntry { actor, action, entity_type: "menu_item", entity_id: item.id.to_string(), site_id: Some(item.site_id) }
}

fn slug_taken(slug: &str) -> ApiError {
    ApiError::slug_taken("menu", slug)
}

/// A live menu, after checking the caller has `capability` on its site.
async fn find_menu(
    state: &AppState,
    principal: &Principal,
    id: Uuid,
    capability: Capability,
) -> ApiResult<nav_menu::Model> {
    let menu = nav_menu::Entity::find_by_id(id)
        .filter(nav_menu::Column::IsDeleted.eq(false))
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("menu", id))?;
    principal.require(state, menu.site_id, capability).await?;
    Ok(menu)
}

async fn find_item(state: &AppState, principal: &Principal, id: Uuid) -> ApiResult<nav_item::Model> {
    let item = nav_item::Entity::find_by_id(id)
        .filter(nav_item::Column::IsDeleted.eq(false))
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("menu_item", id))?;
    principal.require(state, item.site_id, Capability::EditAnyContent).await?;
    Ok(item)
}

/// Live items of a menu.
async fn live_items<C: ConnectionTrait>(db: &C, menu_id: Uuid) -> ApiResult<Vec<nav_item::Model>> {
    Ok(nav_item::Entity::find()
        .filter(nav_item::Column::MenuId.eq(menu_id))
        .filter(nav_item::Column::IsDeleted.eq(false))
        .order_by_asc(nav_item::Column::DisplayOrder)
        .order_by_asc(nav_item::Column::CreatedAt)
        .all(db)
        .await?)
}

/// The tree: items whose parent is not a live item of the menu sit at the top.
fn tree(items: &[nav_item::Model], locale: Option<&str>) -> Vec<MenuItemNode> {
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

fn check_url(raw: &str) -> Result<String, FieldError> {
    crate::values::link_target("url", raw, true)
}

/// Labels keyed by codes of locales assigned to the site, each a non-empty string.
async fn check_labels<C: ConnectionTrait>(db: &C, site_id: Uuid, labels: &Map<String, Value>) -> ApiResult<Value> {
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
async fn check_content<C: ConnectionTrait>(db: &C, site_id: Uuid, content_id: Uuid) -> ApiResult<()> {
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
fn check_parent(items: &[nav_item::Model], item_id: Option<Uuid>, parent_id: Uuid) -> ApiResult<()> {
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

#[utoipa::path(get, path = "/sites/{site_id}/menus", tag = "Navigation", params(("site_id" = Uuid, Path)),
    responses((status = 200, body = Vec<MenuResponse>), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn list_menus(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::Read).await?;
    let menus = nav_menu::Entity::find()
        .filter(nav_menu::Column::SiteId.eq(site_id))
        .filter(nav_menu::Column::IsDeleted.eq(false))
        .order_by_asc(nav_menu::Column::Name)
        .all(&state.db)
        .await?;
    Ok(HttpResponse::Ok().json(menus.iter().map(MenuResponse::from).collect::<Vec<_>>()))
}

#[utoipa::path(get, path = "/menus/{id}", tag = "Navigation", params(("id" = Uuid, Path), MenuQuery),
    responses((status = 200, body = MenuDetail), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn get_menu(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    query: web::Query<MenuQuery>,
) -> ApiResult<HttpResponse> {
    let menu = find_menu(&state, &principal, id.into_inner(), Capability::Read).await?;
    let items = live_items(&state.db, menu.id).await?;
    Ok(HttpResponse::Ok()
        .json(MenuDetail { menu: MenuResponse::from(&menu), items: tree(&items, query.locale.as_deref()) }))
}

#[utoipa::path(post, path = "/sites/{site_id}/menus", tag = "Navigation", params(("site_id" = Uuid, Path)), request_body = CreateMenu,
    responses((status = 201, body = MenuResponse), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn create_menu(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
    body: web::Json<CreateMenu>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    principal.require(&state, site_id, Capability::EditAnyContent).await?;
    state.site_state(site_id).await?;
    let body = body.into_inner();
    let mut errors = Vec::new();
    let given_name = match (body.name.trim(), body.slug.as_deref()) {
        ("", Some(slug)) => slug,
        ("", None) => "Menu",
        _ => body.name.as_str(),
    };
    let name = required_text("name", given_name, 100).map_err(|e| errors.push(e)).ok();
    let slug = body.slug.as_deref().and_then(|s| Slug::parse("slug", s).map_err(|e| errors.push(e)).ok());
    let (Some(name), true) = (name, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let slug = slug.map(Slug::into_inner).unwrap_or_else(|| crate::content::slugify(&name));
    let now = state.clock.now();
    let txn = crate::db::begin_write(&state.db).await?;
    let created = nav_menu::ActiveModel {
        id: Set(Uuid::new_v4()),
        site_id: Set(site_id),
        name: Set(name),
        slug: Set(slug.clone()),
        created_at: Set(now),
        updated_at: Set(now),
        deleted_at: Set(None),
        is_deleted: Set(false),
    }
    .insert(&txn)
    .await
    .map_err(on_constraint(Constraint::Unique, || slug_taken(&slug)))?;
    let response = MenuResponse::from(&created);
    audit::record(&txn, now, menu_entry(&principal.actor_id(), Action::Create, &created), &(), &response).await?;
    commit_with_events(
        &state,
        txn,
        vec![event("updated", state.clock.now(), site_id, created.id, &created.name, Some(&created.slug))],
    )
    .await?;
    Ok(HttpResponse::Created().json(response))
}

#[utoipa::path(put, path = "/menus/{id}", tag = "Navigation", params(("id" = Uuid, Path)), request_body = UpdateMenu,
    responses((status = 200, body = MenuResponse), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn update_menu(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<UpdateMenu>,
) -> ApiResult<HttpResponse> {
    let current = find_menu(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let body = body.into_inner();
    let mut errors = Vec::new();
    let name = body.name.as_deref().and_then(|n| required_text("name", n, 100).map_err(|e| errors.push(e)).ok());
    let slug = body
        .slug
        .as_deref()
        .and_then(|s| Slug::parse("slug", s).map_err(|e| errors.push(e)).ok())
        .map(Slug::into_inner);
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let before = MenuResponse::from(&current);
    let mut row: nav_menu::ActiveModel = current.into();
    if let Some(name) = name {
        row.name = Set(name);
    }
    if let Some(slug) = &slug {
        row.slug = Set(slug.clone());
    }
    row.updated_at = Set(state.clock.now());
    let txn = crate::db::begin_write(&state.db).await?;
    let updated = row
        .update(&txn)
        .await
        .map_err(on_constraint(Constraint::Unique, || slug_taken(slug.as_deref().unwrap_or_default())))?;
    let after = MenuResponse::from(&updated);
    audit::record(
        &txn,
        state.clock.now(),
        menu_entry(&principal.actor_id(), Action::Update, &updated),
        &before,
        &after,
    )
    .await?;
    commit_with_events(
        &state,
        txn,
        vec![event("updated", state.clock.now(), updated.site_id, updated.id, &updated.name, Some(&updated.slug))],
    )
    .await?;
    Ok(HttpResponse::Ok().json(after))
}

#[utoipa::path(delete, path = "/menus/{id}", tag = "Navigation", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Moved to the trash with its items"), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn delete_menu(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let current = find_menu(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let before = MenuResponse::from(&current);
    let mut row: nav_menu::ActiveModel = current.into();
    row.is_deleted = Set(true);
    row.deleted_at = Set(Some(state.clock.now()));
    let txn = crate::db::begin_write(&state.db).await?;
    let deleted = row.update(&txn).await?;
    audit::record(
        &txn,
        state.clock.now(),
        menu_entry(&principal.actor_id(), Action::Delete, &deleted),
        &before,
        &json!({"is_deleted": true}),
    )
    .await?;
    commit_with_events(
        &state,
        txn,
        vec![event("updated", state.clock.now(), deleted.site_id, deleted.id, &deleted.name, Some(&deleted.slug))],
    )
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(post, path = "/menus/{id}/items", tag = "Navigation", params(("id" = Uuid, Path)), request_body = CreateMenuItem,
    responses((status = 201, body = MenuItemNode), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn create_menu_item(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<CreateMenuItem>,
) -> ApiResult<HttpResponse> {
    let menu = find_menu(&state, &principal, id.into_inner(), Capability::EditAnyContent).await?;
    let body = body.into_inner();
    let mut errors = Vec::new();
    let localized = body.localizations.first().and_then(|l| l.get("title")).and_then(Value::as_str);
    let given_label = match (body.label.trim(), localized, body.url.as_deref()) {
        ("", Some(title), _) => title,
        ("", None, Some(url)) => url,
        _ => body.label.as_str(),
    };
    let label = required_text("label", given_label, 100).map_err(|e| errors.push(e)).ok();
    let url = body.url.as_deref().and_then(|u| check_url(u).map_err(|e| errors.push(e)).ok());
    if body.url.is_some() == body.content_id.is_some() {
        errors.push(FieldError::new(
            "url",
            ErrorCode::ValidationInvalidFormat,
            "give exactly one of url and content_id",
        ));
    }
    let (Some(label), true) = (label, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let txn = crate::db::begin_write(&state.db).await?;
    let labels = check_labels(&txn, menu.site_id, &body.labels).await?;
    if let Some(content_id) = body.content_id {
        check_content(&txn, menu.site_id, content_id).await?;
    }
    if let Some(parent_id) = body.parent_id {
        check_parent(&live_items(&txn, menu.id).await?, None, parent_id)?;
    }
    let now = state.clock.now();
    let created = nav_item::ActiveModel {
        id: Set(Uuid::new_v4()),
        menu_id: Set(menu.id),
        site_id: Set(menu.site_id),
        parent_id: Set(body.parent_id),
        label: Set(label),
        labels: Set(labels),
        url: Set(url),
        content_id: Set(body.content_id),
        display_order: Set(body.display_order),
        created_at: Set(now),
        updated_at: Set(now),
        deleted_at: Set(None),
        is_deleted: Set(false),
    }
    .insert(&txn)
    .await?;
    let node = tree(std::slice::from_ref(&created), None).remove(0);
    audit::record(&txn, now, item_entry(&principal.actor_id(), Action::Create, &created), &(), &node).await?;
    commit_with_events(
        &state,
        txn,
        vec![event("created", state.clock.now(), created.site_id, created.id, &created.label, created.url.as_deref())],
    )
    .await?;
    Ok(HttpResponse::Created().json(node))
}

#[utoipa::path(put, path = "/menu-items/{id}", tag = "Navigation", params(("id" = Uuid, Path)), request_body = UpdateMenuItem,
    responses((status = 200, body = MenuItemNode), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn update_menu_item(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: web::Json<UpdateMenuItem>,
) -> ApiResult<HttpResponse> {
    let current = find_item(&state, &principal, id.into_inner()).await?;
    let body = body.into_inner();
    let mut errors = Vec::new();
    let label = body.label.as_deref().and_then(|l| required_text("label", l, 100).map_err(|e| errors.push(e)).ok());
    let url = body.url.as_deref().and_then(|u| check_url(u).map_err(|e| errors.push(e)).ok());
    if body.url.is_some() && body.content_id.is_some() {
        errors.push(FieldError::new(
            "url",
            ErrorCode::ValidationInvalidFormat,
            "give at most one of url and content_id",
        ));
    }
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let txn = crate::db::begin_write(&state.db).await?;
    let labels = match &body.labels {
        Some(labels) => Some(check_labels(&txn, current.site_id, labels).await?),
        None => None,
    };
    if let Some(content_id) = body.content_id {
        check_content(&txn, current.site_id, content_id).await?;
    }
    if let Some(Some(parent_id)) = body.parent_id {
        check_parent(&live_items(&txn, current.menu_id).await?, Some(current.id), parent_id)?;
    }
    let before = tree(std::slice::from_ref(&current), None).remove(0);
    let mut row: nav_item::ActiveModel = current.into();
    if let Some(label) = label {
        row.label = Set(label);
    }
    if let Some(labels) = labels {
        row.labels = Set(labels);
    }
    if let Some(url) = url {
        row.url = Set(Some(url));
        row.content_id = Set(None);
    }
    if let Some(content_id) = body.content_id {
        row.content_id = Set(Some(content_id));
        row.url = Set(None);
    }
    if let Some(parent_id) = body.parent_id {
        row.parent_id = Set(parent_id);
    }
    if let Some(order) = body.display_order {
        row.display_order = Set(order);
    }
    row.updated_at = Set(state.clock.now());
    let updated = row.update(&txn).await?;
    let after = tree(std::slice::from_ref(&updated), None).remove(0);
    audit::record(
        &txn,
        state.clock.now(),
        item_entry(&principal.actor_id(), Action::Update, &updated),
        &before,
        &after,
    )
    .await?;
    commit_with_events(
        &state,
        txn,
        vec![event("updated", state.clock.now(), updated.site_id, updated.id, &updated.label, updated.url.as_deref())],
    )
    .await?;
    Ok(HttpResponse::Ok().json(after))
}

/// An item and everything under it.
fn subtree(items: &[nav_item::Model], root: Uuid) -> Vec<Uuid> {
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        let parent = out[i];
        out.extend(items.iter().filter(|item| item.parent_id == Some(parent)).map(|item| item.id));
        i += 1;
    }
    out
}

#[utoipa::path(delete, path = "/menu-items/{id}", tag = "Navigation", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Moved to the trash with the items under it"), (status = "4XX", body = Problem)), security(("api_key" = []), ("bearer" = [])))]
pub async fn delete_menu_item(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let current = find_item(&state, &principal, id.into_inner()).await?;
    let txn = crate::db::begin_write(&state.db).await?;
    let items = live_items(&txn, current.menu_id).await?;
    let ids = subtree(&items, current.id);
    let now = state.clock.now();
    nav_item::Entity::update_many()
        .col_expr(nav_item::Column::IsDeleted, sea_orm::sea_query::Expr::value(true))
        .col_expr(nav_item::Column::DeletedAt, sea_orm::sea_query::Expr::value(now))
        .filter(nav_item::Column::Id.is_in(ids.clone()))
        .exec(&txn)
        .await?;
    let mut events = Vec::new();
    for item in items.iter().filter(|i| ids.contains(&i.id)) {
        audit::record(
            &txn,
            now,
            item_entry(&principal.actor_id(), Action::Delete, item),
            &json!({"is_deleted": false}),
            &json!({"is_deleted": true}),
        )
        .await?;
        events.push(event("deleted", state.clock.now(), item.site_id, item.id, &item.label, item.url.as_deref()));
    }
    commit_with_events(&state, txn, events).await?;
    Ok(HttpResponse::NoContent().finish())
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
