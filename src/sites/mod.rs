//! Sites: CRUD, locales and settings, and the per-site hot state cache.

mod locales;
mod model;
mod onboarding;
mod purge;
mod reset;
mod routes;
mod service;
pub mod settings;
mod state;

pub use locales::{prefix_path, SiteLocaleResponse};
pub use model::{CreateSite, SiteLocaleInput, SiteResponse, UpdateSite};
pub use purge::purge_expired_sites;
pub use reset::ResetCounts;
pub use settings::SiteSettings;
pub use state::{CachedBody, PublicCache, SiteState};

pub(crate) use locales::__path_add_site_locale;
pub(crate) use locales::__path_delete_site_locale;
pub(crate) use locales::__path_list_site_locales;
pub(crate) use locales::__path_set_default_site_locale;
pub(crate) use locales::__path_update_site_locale;
pub(crate) use onboarding::__path_complete_onboarding_step;
pub(crate) use onboarding::__path_get_site_onboarding;
pub(crate) use reset::__path_reset_content;
pub(crate) use routes::__path_create_site;
pub(crate) use routes::__path_delete_site;
pub(crate) use routes::__path_get_site;
pub(crate) use routes::__path_get_site_by_slug;
pub(crate) use routes::__path_list_deleted_sites;
pub(crate) use routes::__path_list_sites;
pub(crate) use routes::__path_restore_site;
pub(crate) use routes::__path_site_context;
pub(crate) use routes::__path_update_site;
pub(crate) use settings::__path_get_settings;
pub(crate) use settings::__path_update_settings;

use actix_web::web;

pub fn configure(cfg: &mut web::ServiceConfig) {
    use web::{delete, get, post, put, resource};
    // Literal segments before `{id}`, so `/sites/deleted` is not read as an id.
    cfg.service(resource("/sites").route(get().to(routes::list_sites)).route(post().to(routes::create_site)))
        .service(resource("/sites/deleted").route(get().to(routes::list_deleted_sites)))
        .service(resource("/sites/by-slug/{slug}").route(get().to(routes::get_site_by_slug)))
        .service(resource("/sites/{id}/reset-content").route(post().to(reset::reset_content)))
        .service(resource("/sites/{id}/restore").route(post().to(routes::restore_site)))
        .service(resource("/sites/{id}/context").route(get().to(routes::site_context)))
        .service(resource("/sites/{site_id}/onboarding").route(get().to(onboarding::get_site_onboarding)))
        .service(resource("/sites/{site_id}/onboarding/{step}").route(post().to(onboarding::complete_onboarding_step)))
        .service(
            resource("/sites/{id}")
                .route(get().to(routes::get_site))
                .route(put().to(routes::update_site))
                .route(delete().to(routes::delete_site)),
        )
        .service(
            resource("/sites/{site_id}/settings")
                .route(get().to(settings::get_settings))
                .route(put().to(settings::update_settings)),
        )
        .service(
            resource("/sites/{site_id}/locales")
                .route(get().to(locales::list_site_locales))
                .route(post().to(locales::add_site_locale)),
        )
        .service(
            resource("/sites/{site_id}/locales/{locale_id}")
                .route(put().to(locales::update_site_locale))
                .route(delete().to(locales::delete_site_locale)),
        )
        .service(
            resource("/sites/{site_id}/locales/{locale_id}/default").route(put().to(locales::set_default_site_locale)),
        );
}
