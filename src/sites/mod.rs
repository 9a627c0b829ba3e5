//! Sites: CRUD, locales and settings, and the per-site hot state cache.

mod access;
mod leases;
mod locales;
mod model;
mod onboarding;
mod purge;
mod reset;
mod routes;
mod service;
pub mod settings;

pub use access::{check_may_create, creator};
pub use locales::SiteLocaleResponse;
pub use model::{CreateSite, SiteLocaleInput, SiteResponse, UpdateSite};
pub use purge::purge_expired_sites;
pub use service::locales::prefix_path;
pub use service::reset::ResetCounts;
pub use service::SiteCreator;
pub use settings::SiteSettings;

use crate::routes::Routes;

pub fn routes(r: &mut Routes) {
    // Literal segments before `{id}`, so `/sites/deleted` is not read as an id.
    crate::mount!(r,
        routes => [list_sites, create_site, list_deleted_sites, get_site_by_slug],
        reset => [reset_content],
        routes => [restore_site, site_context],
        onboarding => [get_site_onboarding, complete_onboarding_step, get_origin_onboarding, complete_origin_onboarding_step],
        routes => [get_site, update_site, delete_site],
        settings => [get_settings, update_settings, take_settings_lease, release_settings_lease],
        locales => [list_site_locales, add_site_locale, update_site_locale, delete_site_locale, set_default_site_locale],
        leases => [list_leases],
    );
}
