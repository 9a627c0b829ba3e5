//! The pair of handlers every row with an edit lease of its own has (a menu,
//! a menu item, a redirect, a media file, …), declared once:
//! [`row_lease_handlers!`] writes them for a row type (`leases::LeasedRow`),
//! the capability that may change it, and its path.

/// `POST` and `DELETE` of a row's edit lease at `path`: whoever `find` lets
/// change the row with `capability` (`who` says it in the document: on the
/// row's site, on every site of a media file, a form's author or any-form
/// role) may take, renew or release it (`crate::leases::take_row`,
/// `crate::leases::release`).
///
/// Paths say `crate`, not `$crate`: the macro is this crate's own, and
/// `utoipa::path` reads the types in its attribute as plain paths.
#[macro_export]
#[allow(clippy::crate_in_macro_def)]
macro_rules! row_lease_handlers {
    // Found by `site_rows::find`, as most rows are.
    (
        $row:ty, $capability:expr, who = $who:literal, path = $path:literal, tag = $tag:literal,
        take = $take:ident($take_summary:literal), release = $release:ident($release_summary:literal) $(,)?
    ) => {
        $crate::row_lease_handlers!($row, $capability, find = crate::site_rows::find, who = $who, path = $path,
            tag = $tag, take = $take($take_summary), release = $release($release_summary));
    };
    // Found by the family's own `find(state, principal, id, capability)` (a
    // document's also checks that its site has the module on).
    (
        $row:ty, $capability:expr, find = $find:path, who = $who:literal, path = $path:literal, tag = $tag:literal,
        take = $take:ident($take_summary:literal), release = $release:ident($release_summary:literal) $(,)?
    ) => {
        $crate::row_lease_handlers!($row, $capability, find = $find, id = "id", who = $who, path = $path,
            tag = $tag, take = $take($take_summary), release = $release($release_summary));
    };
    // The path's one parameter named `id` (`{site_id}` where the row is a
    // site's own, as its settings are).
    (
        $row:ty, $capability:expr, find = $find:path, id = $id:literal, who = $who:literal, path = $path:literal,
        tag = $tag:literal, take = $take:ident($take_summary:literal),
        release = $release:ident($release_summary:literal) $(,)?
    ) => {
        // Attributes, not `///`: the document trims the lines' common indent,
        // and a `///` line's leading space would stay beside the literals'.
        #[doc = $take_summary]
        #[doc = ""]
        #[doc = $who]
        #[doc = "Leases are advisory (see `POST /blogs/{id}/lease`). Errors:"]
        #[doc = "LEASE_HELD (423, with the holder, unless `takeover`), ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE,"]
        #[doc = "VALIDATION_OUT_OF_RANGE."]
        #[utoipa::path(post, path = $path, tag = $tag, params(($id = uuid::Uuid, Path)),
            request_body(content = Option<crate::leases::TakeLease>),
            responses(
                (status = 200, body = crate::leases::LeaseResponse, description = "Taken, renewed or taken over"),
                (status = 423, body = crate::error::Problem,
                    description = "LEASE_HELD: another caller holds it; `lease` names who and until when")
            ))]
        pub async fn $take(
            state: actix_web::web::Data<crate::state::AppState>,
            principal: crate::auth::Principal,
            id: actix_web::web::Path<uuid::Uuid>,
            body: Option<crate::body::Json<crate::leases::TakeLease>>,
        ) -> crate::error::ApiResult<actix_web::HttpResponse> {
            let row: $row = $find(&state, &principal, *id, $capability).await?;
            let body = body.map(|b| b.into_inner());
            let lease = crate::leases::take_row(&state, &principal.actor(), &row, body).await?;
            Ok(actix_web::HttpResponse::Ok().json(lease))
        }

        #[doc = $release_summary]
        #[doc = ""]
        #[doc = "The holder's; nothing to release answers 204 too. Errors: LEASE_HELD (423: another caller's live lease),"]
        #[doc = "ENTITY_NOT_FOUND, AUTH_INSUFFICIENT_ROLE."]
        #[utoipa::path(delete, path = $path, tag = $tag, params(($id = uuid::Uuid, Path)),
            responses(
                (status = 204, description = "Released (or there was none of the caller's)"),
                (status = 423, body = crate::error::Problem, description = "LEASE_HELD: another caller's live lease")
            ))]
        pub async fn $release(
            state: actix_web::web::Data<crate::state::AppState>,
            principal: crate::auth::Principal,
            id: actix_web::web::Path<uuid::Uuid>,
        ) -> crate::error::ApiResult<actix_web::HttpResponse> {
            let row: $row = $find(&state, &principal, *id, $capability).await?;
            crate::leases::release(&state, &principal.actor(), crate::leases::LeasedRow::lease_id(&row)).await?;
            Ok(actix_web::HttpResponse::NoContent().finish())
        }
    };
}
