//! Who may do what with forms: the caller's capability on a site (then the
//! module gate), a form or template found by id with the caller's grant on its
//! site, and the review of submissions (anyone's with the `:any` role, those
//! of forms one created with the author role). Services take what these
//! answer, never the caller.

use plinth_entities::{form, form_submission, form_template};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

use super::gate::require_module;
use crate::auth::{Capability, Granted, Principal, SiteGrant};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// What a reviewer does with a form's submissions.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Handle,
}

/// The caller's capability on a site, then the module gate: permissions are
/// checked before anything else the request could learn.
pub async fn forms_site(
    state: &AppState,
    principal: &Principal,
    site_id: Uuid,
    capability: Capability,
) -> ApiResult<SiteGrant> {
    let site = principal.require(state, site_id, capability).await?;
    require_module(state, site_id).await?;
    Ok(site)
}

/// The live form `id`, once the caller has `capability` on its site.
pub async fn form(
    state: &AppState,
    principal: &Principal,
    id: Uuid,
    capability: Capability,
) -> ApiResult<Granted<form::Model>> {
    let found = form::Entity::find_by_id(id).one(&state.db).await?.ok_or_else(|| ApiError::not_found("form", id))?;
    let site = principal.require(state, found.site_id, capability).await?;
    require_module(state, found.site_id).await?;
    if found.deleted_at.is_some() {
        return Err(ApiError::not_found("form", id));
    }
    Ok(Granted::new(found, site))
}

/// The live form `id`, once the caller may change it (as `form`, then its
/// author with `capability`, or anyone with the any-form role).
pub async fn editable_form(
    state: &AppState,
    principal: &Principal,
    id: Uuid,
    capability: Capability,
) -> ApiResult<form::Model> {
    let (found, site) = form(state, principal, id, capability).await?.into_parts();
    require_editable(&site, &found)?;
    Ok(found)
}

/// Whether the caller may change or delete `form`: its author with the
/// `form:*:own` role, anyone with `form:*:any`.
pub fn require_editable(site: &SiteGrant, form: &form::Model) -> ApiResult<()> {
    let own = form.created_by.as_ref() == Some(site.actor());
    if own && site.has(Capability::ManageOwnForms) {
        return Ok(());
    }
    site.ensure(Capability::ManageAnyForm, "changing a form created by someone else")
}

/// The form template `id`, once the caller may manage its site's templates.
pub async fn template(state: &AppState, principal: &Principal, id: Uuid) -> ApiResult<Granted<form_template::Model>> {
    let found = form_template::Entity::find_by_id(id)
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("form_template", id))?;
    let site = principal.require(state, found.site_id, Capability::ManageFormTemplates).await?;
    require_module(state, found.site_id).await?;
    Ok(Granted::new(found, site))
}

/// Whether the caller may read or handle the submissions of `f`: anyone's
/// with the `:any` role, those of forms they created with the author role.
async fn review_grant(
    state: &AppState,
    principal: &Principal,
    f: &form::Model,
    access: Access,
) -> ApiResult<SiteGrant> {
    let site = principal.standing(state, f.site_id).await?;
    require_module(state, f.site_id).await?;
    let own = f.created_by.as_ref() == Some(site.actor());
    if own && site.has(Capability::HandleOwnFormSubmissions) {
        return Ok(site);
    }
    match access {
        Access::Read => site.ensure(Capability::ReadAnySubmissions, "reading submissions of another's form")?,
        Access::Handle => site.ensure(Capability::HandleAnySubmissions, "handling submissions of another's form")?,
    }
    Ok(site)
}

/// The form `form_id` (deleted ones too: their submissions stay reviewable),
/// once the caller has `access` to its submissions.
pub async fn reviewed_form(
    state: &AppState,
    principal: &Principal,
    form_id: Uuid,
    access: Access,
) -> ApiResult<Granted<form::Model>> {
    let f =
        form::Entity::find_by_id(form_id).one(&state.db).await?.ok_or_else(|| ApiError::not_found("form", form_id))?;
    let site = review_grant(state, principal, &f, access).await?;
    Ok(Granted::new(f, site))
}

/// The live submission `id`, once the caller has `access` to its form's submissions.
pub async fn submission(
    state: &AppState,
    principal: &Principal,
    id: Uuid,
    access: Access,
) -> ApiResult<Granted<form_submission::Model>> {
    let s = form_submission::Entity::find_by_id(id)
        .filter(form_submission::Column::DeletedAt.is_null())
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found("form_submission", id))?;
    let f = reviewed_form(state, principal, s.form_id, access).await?;
    Ok(Granted::new(s, f.into_parts().1))
}
