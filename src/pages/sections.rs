//! A page's sections one by one, at the origin service's admin's paths
//! (`/pages/{id}/sections`, `/pages/sections/{id}`, their localizations and
//! reorder). Each change is a change of the page's `sections` through the
//! content engine's one update (`content::part_edits`): the same role rules
//! as `PUT /pages/{id}` (checked first), the audit entry, `page.updated` and
//! the cache drop; a page changed since it was read is 409 CONFLICT.

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::section_model::{
    ReorderSections, SectionLocalizationResponse, SectionResponse, UpdateSection, UpsertSectionLocalization,
};
use crate::auth::Principal;
use crate::content::model::{PageSection, SectionLocalization, UpdateContent};
use crate::content::page_sections::{self, MAX_DISPLAY_ORDER};
use crate::content::part_edits::{added_id, entry_mut, ids_in, item_of_entry, next_order, remove_by_id, PartList};
use crate::content::{access, ContentKind};
use crate::error::{ApiError, ApiResult, ErrorCode, FieldError};
use crate::state::AppState;

/// A page's sections, as the shared part engine edits them.
const SECTIONS: PartList<PageSection> = PartList {
    kind: ContentKind::Page,
    what: "page section",
    stored: page_sections::stored,
    replace: |sections| UpdateContent { sections: Some(sections), ..UpdateContent::default() },
};

fn respond(page_id: Uuid, section: PageSection) -> SectionResponse {
    SectionResponse { page_id, section }
}

fn find(sections: &[PageSection], id: Uuid) -> ApiResult<PageSection> {
    sections.iter().find(|s| s.id == Some(id)).cloned().ok_or_else(|| ApiError::not_found("page section", id))
}

/// The section `id` of `sections`, to change; 404 when the page has none.
fn section_mut(sections: &mut [PageSection], id: Uuid) -> ApiResult<&mut PageSection> {
    entry_mut(sections, id, |s| s.id, "page section")
}

/// List a page's sections
///
/// In `display_order`. Read role or higher on one of the page's sites. Errors: ENTITY_NOT_FOUND, MODULE_NOT_ENABLED.
#[utoipa::path(get, path = "/pages/{id}/sections", tag = "Pages", params(("id" = Uuid, Path, description = "The page")),
    responses((status = 200, body = Vec<SectionResponse>)))]
pub async fn list_page_sections(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let page_id = id.into_inner();
    let sections = SECTIONS.readable(&access::readable(&state, &principal, SECTIONS.kind, page_id).await?);
    Ok(HttpResponse::Ok().json(sections.into_iter().map(|s| respond(page_id, s)).collect::<Vec<_>>()))
}

/// Add a section to a page
///
/// Who may edit the page (as `PUT /pages/{id}`). Every field is optional; without `display_order` the section goes
/// last. Errors: ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE, VALIDATION_ERROR (over 100 sections, lengths, settings),
/// CONFLICT.
#[utoipa::path(post, path = "/pages/{id}/sections", tag = "Pages", params(("id" = Uuid, Path, description = "The page")),
    request_body = PageSection, responses((status = 201, body = SectionResponse)))]
pub async fn create_page_section(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<PageSection>,
) -> ApiResult<HttpResponse> {
    let page_id = id.into_inner();
    let mut section = body.into_inner();
    let (before, sections) = SECTIONS
        .change(&state, access::editable(&state, &principal, SECTIONS.kind, page_id, true).await?, |sections| {
            let next = next_order(sections.iter().map(|s| s.display_order), MAX_DISPLAY_ORDER);
            section.display_order = section.display_order.or(Some(next));
            // The new section's id, and its texts', are the server's.
            section.id = None;
            section.localizations.iter_mut().for_each(|text| text.id = None);
            let before = ids_in(sections, |s| s.id);
            sections.push(section);
            Ok(before)
        })
        .await?;
    let new_id = added_id(&before, sections.iter().filter_map(|s| s.id), "page section")?;
    Ok(HttpResponse::Created().json(respond(page_id, find(&sections, new_id)?)))
}

/// Change a page section
///
/// Who may edit the page. Only the fields sent change. Errors: ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE,
/// VALIDATION_ERROR, CONFLICT.
#[utoipa::path(put, path = "/pages/sections/{id}", tag = "Pages", params(("id" = Uuid, Path, description = "The section")),
    request_body = UpdateSection, responses((status = 200, body = SectionResponse)))]
pub async fn update_page_section(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpdateSection>,
) -> ApiResult<HttpResponse> {
    let section_id = id.into_inner();
    let page_id = SECTIONS.item_of_part(&state, section_id).await?;
    let (_, sections) = SECTIONS
        .change(&state, access::editable(&state, &principal, SECTIONS.kind, page_id, true).await?, |sections| {
            body.into_inner().apply(section_mut(sections, section_id)?);
            Ok(())
        })
        .await?;
    Ok(HttpResponse::Ok().json(respond(page_id, find(&sections, section_id)?)))
}

/// Delete a page section
///
/// Who may edit the page. The section and its localizations are gone (the page's earlier states stay in its audit
/// history). Errors: ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE, CONFLICT.
#[utoipa::path(delete, path = "/pages/sections/{id}", tag = "Pages", params(("id" = Uuid, Path, description = "The section")),
    responses((status = 204, description = "Deleted")))]
pub async fn delete_page_section(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let section_id = id.into_inner();
    let page_id = SECTIONS.item_of_part(&state, section_id).await?;
    SECTIONS
        .change(&state, access::editable(&state, &principal, SECTIONS.kind, page_id, true).await?, |sections| {
            remove_by_id(sections, section_id, |s| s.id, "page section")
        })
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Reorder a page's sections
///
/// Who may edit the page. All or nothing: a section not on the page is 404 and nothing moves; more than 1,000 items,
/// one named twice or a position outside 0-9999 is 422. Errors: ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE,
/// VALIDATION_ERROR, CONFLICT.
#[utoipa::path(post, path = "/pages/{id}/sections/reorder", tag = "Pages",
    params(("id" = Uuid, Path, description = "The page")), request_body = ReorderSections,
    responses((status = 204, description = "Reordered")))]
pub async fn reorder_page_sections(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<ReorderSections>,
) -> ApiResult<HttpResponse> {
    let page_id = id.into_inner();
    let items = body.into_inner().items;
    SECTIONS
        .change(&state, access::editable(&state, &principal, SECTIONS.kind, page_id, true).await?, |sections| {
            crate::values::reorder_ids(items.iter().map(|item| item.id))?;
            if let Some(index) = items.iter().position(|item| !(0..=MAX_DISPLAY_ORDER).contains(&item.display_order)) {
                return Err(ApiError::validation(vec![FieldError::new(
                    format!("items[{index}].display_order"),
                    ErrorCode::ValidationOutOfRange,
                    format!("must be 0 to {MAX_DISPLAY_ORDER}"),
                )]));
            }
            for item in &items {
                section_mut(sections, item.id)?.display_order = Some(item.display_order);
            }
            Ok(())
        })
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

fn texts_of(section: &PageSection) -> impl Iterator<Item = SectionLocalizationResponse> + '_ {
    let section_id = section.id.unwrap_or_default();
    section
        .localizations
        .iter()
        .map(move |text| SectionLocalizationResponse { page_section_id: section_id, text: text.clone() })
}

/// List a section's localizations
///
/// Read role or higher on one of the page's sites. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/pages/sections/{id}/localizations", tag = "Pages",
    params(("id" = Uuid, Path, description = "The section")),
    responses((status = 200, body = Vec<SectionLocalizationResponse>)))]
pub async fn list_section_localizations(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let section_id = id.into_inner();
    let page_id = SECTIONS.item_of_part(&state, section_id).await?;
    let section =
        find(&SECTIONS.readable(&access::readable(&state, &principal, SECTIONS.kind, page_id).await?), section_id)?;
    Ok(HttpResponse::Ok().json(texts_of(&section).collect::<Vec<_>>()))
}

/// List the localizations of every section of a page
///
/// In section order. Read role or higher on one of the page's sites. Errors: ENTITY_NOT_FOUND.
#[utoipa::path(get, path = "/pages/{id}/sections/localizations", tag = "Pages",
    params(("id" = Uuid, Path, description = "The page")),
    responses((status = 200, body = Vec<SectionLocalizationResponse>)))]
pub async fn list_page_section_localizations(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let sections = SECTIONS.readable(&access::readable(&state, &principal, SECTIONS.kind, id.into_inner()).await?);
    Ok(HttpResponse::Ok().json(sections.iter().flat_map(texts_of).collect::<Vec<_>>()))
}

/// Set a section's text in one locale
///
/// Who may edit the page. Replaces the section's text in `locale_id` (fields not sent become null), or adds it.
/// Errors: ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE, VALIDATION_ERROR (a locale not of the page's sites, lengths),
/// CONFLICT.
#[utoipa::path(put, path = "/pages/sections/{id}/localizations", tag = "Pages",
    params(("id" = Uuid, Path, description = "The section")), request_body = UpsertSectionLocalization,
    responses((status = 200, body = SectionLocalizationResponse)))]
pub async fn upsert_section_localization(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
    body: crate::body::Json<UpsertSectionLocalization>,
) -> ApiResult<HttpResponse> {
    let section_id = id.into_inner();
    let page_id = SECTIONS.item_of_part(&state, section_id).await?;
    crate::preconditions::about_item(&*state.db, page_id).await?;
    let UpsertSectionLocalization { locale_id, title, text, button_text } = body.into_inner();
    let editable = access::editable(&state, &principal, SECTIONS.kind, page_id, true).await?;
    if crate::preconditions::pending() {
        // `If-Match` names a version of what this path's GET answers: the
        // section's list of texts.
        let texts: Vec<_> = texts_of(&find(&SECTIONS.readable(&editable), section_id)?).collect();
        crate::preconditions::compare_with(&texts);
    }
    // A code is looked up among all locales; whether the page's sites have
    // it is checked with the sections, as for an id.
    let locale_id = crate::locales::named(&*state.db, &locale_id, "locale_id").await?.id;
    let (_, sections) = SECTIONS
        .change(&state, editable, |sections| {
            let section = section_mut(sections, section_id)?;
            let replaced = SectionLocalization { id: None, locale_id, locale: None, title, text, button_text };
            match section.localizations.iter_mut().find(|t| t.locale_id == locale_id) {
                Some(existing) => *existing = SectionLocalization { id: existing.id, ..replaced },
                None => section.localizations.push(replaced),
            }
            Ok(())
        })
        .await?;
    let section = find(&sections, section_id)?;
    let texts: Vec<_> = texts_of(&section).collect();
    let stored = texts.iter().find(|t| t.text.locale_id == locale_id);
    // The answer is one text; its tag is that of the path's GET (all the
    // section's texts), which the next conditional save of this path sends.
    let tag = crate::etag::etag_of(&serde_json::to_vec(&texts).map_err(ApiError::internal)?);
    stored
        .map(|t| HttpResponse::Ok().insert_header((actix_web::http::header::ETAG, tag)).json(t))
        .ok_or_else(|| ApiError::internal("the section's text was not stored"))
}

/// Delete a section's text in one locale
///
/// Who may edit the page. Errors: ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE, CONFLICT.
#[utoipa::path(delete, path = "/pages/sections/localizations/{id}", tag = "Pages",
    params(("id" = Uuid, Path, description = "The section localization")),
    responses((status = 204, description = "Deleted")))]
pub async fn delete_section_localization(
    state: web::Data<AppState>,
    principal: Principal,
    id: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let text_id = id.into_inner();
    let (page_id, section_id) = item_of_entry(&state, text_id, "section localization").await?;
    SECTIONS
        .change(&state, access::editable(&state, &principal, SECTIONS.kind, page_id, true).await?, |sections| {
            let texts = &mut section_mut(sections, section_id)?.localizations;
            remove_by_id(texts, text_id, |t| t.id, "section localization")
        })
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
