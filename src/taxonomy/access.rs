//! Who may touch a category or tag, or one of its localizations: the row found
//! by id, then the caller's capability on the row's site checked, answered as
//! the row with its grant for the services.

use plinth_entities::{term, term_localization};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

use super::Taxonomy;
use crate::auth::{Capability, Granted, Principal};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

/// A term with the caller's grant on its site.
pub(super) type GrantedTerm = Granted<term::Model>;

/// A term localization with the caller's grant on its term's site.
pub(super) type GrantedLocalization = Granted<term_localization::Model>;

/// The term `id` of `taxonomy` (404 otherwise), after checking the caller has
/// `capability` on its site.
pub(super) async fn term(
    state: &AppState,
    principal: &Principal,
    taxonomy: Taxonomy,
    id: Uuid,
    capability: Capability,
) -> ApiResult<GrantedTerm> {
    let row = term::Entity::find_by_id(id)
        .filter(term::Column::Taxonomy.eq(taxonomy.as_str()))
        .one(&state.db)
        .await?
        .ok_or_else(|| ApiError::not_found(taxonomy.as_str(), id))?;
    let grant = principal.require(state, row.site_id, capability).await?;
    Ok(Granted::new(row, grant))
}

/// The localization `id` of a term of `taxonomy`, after checking the caller's
/// right to edit its term's site. A missing localization or term is
/// ENTITY_LOCALIZATION_NOT_FOUND.
pub(super) async fn localization(
    state: &AppState,
    principal: &Principal,
    taxonomy: Taxonomy,
    id: Uuid,
) -> ApiResult<GrantedLocalization> {
    let not_found = || {
        ApiError::entity(
            ErrorCode::EntityLocalizationNotFound,
            taxonomy.as_str(),
            format!("no {} localization {id}", taxonomy.as_str()),
        )
    };
    let row = term_localization::Entity::find_by_id(id).one(&state.db).await?.ok_or_else(not_found)?;
    let owner = term(state, principal, taxonomy, row.term_id, Capability::EditAnyContent).await.map_err(|e| {
        if e.code() == ErrorCode::EntityNotFound {
            not_found()
        } else {
            e
        }
    })?;
    Ok(Granted::new(row, owner.into_parts().1))
}
