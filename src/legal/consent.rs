//! A legal document's consent groups and their items one by one, at the
//! origin service's admin's paths (`/legal/{id}/groups`, `/legal/groups/{id}`,
//! `/legal/groups/{id}/items`, `/legal/items/{id}`), and the site's cookie
//! consent document whole (`/sites/{site_id}/legal/cookie-consent`). Each
//! change is a change of the document's `groups` through the content engine's
//! one update (`content::part_edits`): the role rules of `PUT /legal/{id}`
//! (checked first), the audit entry, `legal.updated`, the cache drop, and 409
//! CONFLICT for a document changed since it was read.

use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::Principal;
use crate::content::legal_consent::{self, MAX_DISPLAY_ORDER};
use crate::content::model::{ConsentGroup, ConsentItem, LegalDocumentType, UpdateContent};
use crate::content::part_edits::{added_id, entry_mut, ids_in, item_of_entry, next_order, remove_by_id, PartList};
use crate::content::read::{self, ListOptions};
use crate::content::{access, ContentKind};
use crate::error::{ApiError, ApiResult};
use crate::pagination::Page;
use crate::state::AppState;

const GROUPS: PartList<ConsentGroup> = PartList {
    kind: ContentKind::Legal,
    what: "legal group",
    stored: legal_consent::stored,
    replace: |groups| UpdateContent { groups: Some(groups), ..UpdateContent::default() },
};

/// One consent group of a legal document, with its items.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct LegalGroupResponse {
    /// The document.
    pub legal_document_id: Uuid,
    #[serde(flatten)]
    pub group: ConsentGroup,
}

/// One item of a consent group.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct LegalItemResponse {
    /// The group.
    pub legal_group_id: Uuid,
    #[serde(flatten)]
    pub item: ConsentItem,
}

/// A site's cookie consent document with its groups and their items.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CookieConsentResponse {
    pub id: Uuid,
    /// The document's title.
    pub cookie_name: String,
    pub document_type: LegalDocumentType,
    /// In `display_order`, each with its items.
    pub groups: Vec<ConsentGroup>,
}

/// Only the fields sent change.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateLegalGroup {
    /// 1 to 100 characters.
    #[schema(min_length = 1, max_length = 100)]
    pub cookie_name: Option<String>,
    /// 0 to 9999; the groups are kept in this order.
    #[schema(minimum = 0, maximum = 9999)]
    pub display_order: Option<i32>,
    pub is_required: Option<bool>,
    pub default_enabled: Option<bool>,
}

/// Only the fields sent change.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct UpdateLegalItem {
    /// 1 to 100 characters.
    #[schema(min_length = 1, max_length = 100)]
    pub cookie_name: Option<String>,
    /// 0 to 9999; a group's items are kept in this order.
    #[schema(minimum = 0, maximum = 9999)]
    pub display_order: Option<i32>,
    pub is_required: Option<bool>,
}

fn group_response(legal_document_id: Uuid, groups: &[ConsentGroup], id: Uuid) -> ApiResult<LegalGroupResponse> {
    let group =
        groups.iter().find(|g| g.id == Some(id)).cloned().ok_or_else(|| ApiError::not_found("legal group", id))?;
    Ok(LegalGroupResponse { legal_document_id, group })
}

fn item_response(groups: &[ConsentGroup], group_id: Uuid, id: Uuid) -> ApiResult<LegalItemResponse> {
    let item = groups.iter().filter(|g| g.id == Some(group_id)).flat_map(|g| &g.items).find(|i| i.id == Some(id));
    let item = item.cloned().ok_or_else(|| ApiError::not_found("legal item", id))?;
    Ok(LegalItemResponse { legal_group_id: group_id, item })
}

fn group_mut(groups: &mut [ConsentGroup], id: Uuid) -> ApiResult<&mut ConsentGroup> {
    entry_mut(groups, id, |g| g.id, "legal group")
}

/// List a legal document's consent groups
///
/// In `display_order`, each with its items. Read role or higher on one of the document's sites. Errors:
/// ENTITY_NOT_FOUND, MODULE_NOT_ENABLED.
#[utoipa::path(get, path = "/legal/{id}/groups", tag = "Legal documents",
    params(("id" = Uuid, Path, description = "The legal document")),
    responses((status = 200, body = Vec<LegalGroupResponse>)))]
pub async fn list_legal_groups(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let document_id = id.into_inner();
    let groups = GROUPS.readable(&access::readable(&state, &principal, GROUPS.kind, document_id).await?);
    let answer = groups.into_iter().map(|group| LegalGroupResponse { legal_document_id: document_id, group });
    Ok(HttpResponse::Ok().json(answer.collect::<Vec<_>>()))
}

/// Add a consent group to a legal document
///
/// Who may edit the document (as `PUT /legal/{id}`). `cookie_name` is required; `display_order` defaults to after
/// the last group, `is_required` and `default_enabled` to false; `items` may come along. At most 50 groups. Errors:
/// ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE, VALIDATION_ERROR, CONFLICT, MODULE_NOT_ENABLED.
#[utoipa::path(post, path = "/legal/{id}/groups", tag = "Legal documents",
    params(("id" = Uuid, Path, description = "The legal document")), request_body = ConsentGroup,
    responses((status = 201, body = LegalGroupResponse)))]
pub async fn create_legal_group(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<ConsentGroup>,
) -> ApiResult<HttpResponse> {
    let document_id = id.into_inner();
    let mut group = body.into_inner();
    let (before, groups) = GROUPS
        .change(&state, access::editable(&state, &principal, GROUPS.kind, document_id, true).await?, |groups| {
            group.display_order =
                group.display_order.or(Some(next_order(groups.iter().map(|g| g.display_order), MAX_DISPLAY_ORDER)));
            // The new group's id, and its items', are the server's (given on
            // storing): an id sent here is taken as none.
            group.id = None;
            group.items.iter_mut().for_each(|item| item.id = None);
            let before = ids_in(groups, |g| g.id);
            groups.push(group);
            Ok(before)
        })
        .await?;
    let new_id = added_id(&before, groups.iter().filter_map(|g| g.id), "legal group")?;
    Ok(HttpResponse::Created().json(group_response(document_id, &groups, new_id)?))
}

/// Change a consent group
///
/// Who may edit its document. Only the fields sent change. Errors: ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE,
/// VALIDATION_ERROR, CONFLICT.
#[utoipa::path(put, path = "/legal/groups/{id}", tag = "Legal documents",
    params(("id" = Uuid, Path, description = "The group")), request_body = UpdateLegalGroup,
    responses((status = 200, body = LegalGroupResponse)))]
pub async fn update_legal_group(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateLegalGroup>,
) -> ApiResult<HttpResponse> {
    let group_id = id.into_inner();
    let document_id = GROUPS.item_of_part(&state, group_id).await?;
    let UpdateLegalGroup { cookie_name, display_order, is_required, default_enabled } = body.into_inner();
    let (_, groups) = GROUPS
        .change(&state, access::editable(&state, &principal, GROUPS.kind, document_id, true).await?, |groups| {
            let group = group_mut(groups, group_id)?;
            group.cookie_name = cookie_name.unwrap_or(std::mem::take(&mut group.cookie_name));
            group.display_order = display_order.or(group.display_order);
            group.is_required = is_required.unwrap_or(group.is_required);
            group.default_enabled = default_enabled.unwrap_or(group.default_enabled);
            Ok(())
        })
        .await?;
    Ok(HttpResponse::Ok().json(group_response(document_id, &groups, group_id)?))
}

/// Delete a consent group
///
/// Who may edit its document. The group and its items are gone (the document's earlier states stay in its audit
/// history). Errors: ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE, CONFLICT.
#[utoipa::path(delete, path = "/legal/groups/{id}", tag = "Legal documents",
    params(("id" = Uuid, Path, description = "The group")), responses((status = 204, description = "Deleted")))]
pub async fn delete_legal_group(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let group_id = id.into_inner();
    let document_id = GROUPS.item_of_part(&state, group_id).await?;
    GROUPS
        .change(&state, access::editable(&state, &principal, GROUPS.kind, document_id, true).await?, |groups| {
            remove_by_id(groups, group_id, |g| g.id, "legal group")
        })
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// List a consent group's items
///
/// In `display_order`. Read role or higher on one of the document's sites. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/legal/groups/{id}/items", tag = "Legal documents",
    params(("id" = Uuid, Path, description = "The group")), responses((status = 200, body = Vec<LegalItemResponse>)))]
pub async fn list_legal_items(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let group_id = id.into_inner();
    let document_id = GROUPS.item_of_part(&state, group_id).await?;
    let group = group_response(
        document_id,
        &GROUPS.readable(&access::readable(&state, &principal, GROUPS.kind, document_id).await?),
        group_id,
    )?
    .group;
    let answer = group.items.into_iter().map(|item| LegalItemResponse { legal_group_id: group_id, item });
    Ok(HttpResponse::Ok().json(answer.collect::<Vec<_>>()))
}

/// Add an item to a consent group
///
/// Who may edit its document. `cookie_name` is required; `display_order` defaults to after the group's last item,
/// `is_required` to false. At most 100 items per group. Errors: ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE,
/// VALIDATION_ERROR, CONFLICT.
#[utoipa::path(post, path = "/legal/groups/{id}/items", tag = "Legal documents",
    params(("id" = Uuid, Path, description = "The group")), request_body = ConsentItem,
    responses((status = 201, body = LegalItemResponse)))]
pub async fn create_legal_item(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<ConsentItem>,
) -> ApiResult<HttpResponse> {
    let group_id = id.into_inner();
    let document_id = GROUPS.item_of_part(&state, group_id).await?;
    let item = body.into_inner();
    let (before, groups) = GROUPS
        .change(&state, access::editable(&state, &principal, GROUPS.kind, document_id, true).await?, |groups| {
            let group = group_mut(groups, group_id)?;
            let next = next_order(group.items.iter().map(|i| i.display_order), MAX_DISPLAY_ORDER);
            let before = ids_in(&group.items, |i| i.id);
            group.items.push(ConsentItem { id: None, display_order: item.display_order.or(Some(next)), ..item });
            Ok(before)
        })
        .await?;
    let stored = groups.iter().filter(|g| g.id == Some(group_id)).flat_map(|g| &g.items).filter_map(|i| i.id);
    let new_id = added_id(&before, stored, "legal item")?;
    Ok(HttpResponse::Created().json(item_response(&groups, group_id, new_id)?))
}

/// Change a consent group's item
///
/// Who may edit its document. Only the fields sent change. Errors: ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE,
/// VALIDATION_ERROR, CONFLICT.
#[utoipa::path(put, path = "/legal/items/{id}", tag = "Legal documents",
    params(("id" = Uuid, Path, description = "The item")), request_body = UpdateLegalItem,
    responses((status = 200, body = LegalItemResponse)))]
pub async fn update_legal_item(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateLegalItem>,
) -> ApiResult<HttpResponse> {
    let item_id = id.into_inner();
    let (document_id, group_id) = item_of_entry(&state, item_id, "legal item").await?;
    let UpdateLegalItem { cookie_name, display_order, is_required } = body.into_inner();
    let (_, groups) = GROUPS
        .change(&state, access::editable(&state, &principal, GROUPS.kind, document_id, true).await?, |groups| {
            let item = entry_mut(&mut group_mut(groups, group_id)?.items, item_id, |i| i.id, "legal item")?;
            item.cookie_name = cookie_name.unwrap_or(std::mem::take(&mut item.cookie_name));
            item.display_order = display_order.or(item.display_order);
            item.is_required = is_required.unwrap_or(item.is_required);
            Ok(())
        })
        .await?;
    Ok(HttpResponse::Ok().json(item_response(&groups, group_id, item_id)?))
}

/// Delete a consent group's item
///
/// Who may edit its document. Errors: ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE, CONFLICT.
#[utoipa::path(delete, path = "/legal/items/{id}", tag = "Legal documents",
    params(("id" = Uuid, Path, description = "The item")), responses((status = 204, description = "Deleted")))]
pub async fn delete_legal_item(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let item_id = id.into_inner();
    let (document_id, group_id) = item_of_entry(&state, item_id, "legal item").await?;
    GROUPS
        .change(&state, access::editable(&state, &principal, GROUPS.kind, document_id, true).await?, |groups| {
            remove_by_id(&mut group_mut(groups, group_id)?.items, item_id, |i| i.id, "legal item")
        })
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Get a site's cookie consent document
///
/// The site's newest live legal document of type `CookieConsent`, with its groups and their items, for a front end
/// to render its consent banner. Read role or higher on the site. Errors: ENTITY_NOT_FOUND (the site has none),
/// MODULE_NOT_ENABLED.
#[utoipa::path(get, path = "/sites/{site_id}/legal/cookie-consent", tag = "Legal documents",
    params(("site_id" = Uuid, Path)), responses((status = 200, body = CookieConsentResponse)))]
pub async fn get_cookie_consent(
    state: web::Data<AppState>,
    principal: Principal,
    site_id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let site_id = site_id.into_inner();
    let options = ListOptions { document_type: Some(LegalDocumentType::Cookies), ..ListOptions::default() };
    let site = access::site_read(&state, &principal, ContentKind::Legal, site_id).await?;
    let newest = read::list(&state, &site, ContentKind::Legal, Page { page: 1, per_page: 1 }, options).await?;
    let Some(found) = newest.data.into_iter().next() else {
        return Err(ApiError::not_found("cookie consent document of site", site_id));
    };
    let document = access::readable(&state, &principal, ContentKind::Legal, found.id).await?.response();
    Ok(HttpResponse::Ok().json(CookieConsentResponse {
        id: document.id,
        cookie_name: document.title.clone(),
        document_type: LegalDocumentType::Cookies,
        groups: legal_consent::stored(&serde_json::Value::Object(document.kind_fields)),
    }))
}
