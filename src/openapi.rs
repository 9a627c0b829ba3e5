//! The OpenAPI document served at `/api-docs/openapi.json`. Handlers declare
//! paths relative to `/api/v1`; [`PrefixPaths`] adds the prefix.

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::Paths;
use utoipa::{Modify, OpenApi};

use crate::{api_keys, blogs, locales, sites, system, taxonomy};

#[derive(OpenApi)]
#[openapi(
    info(title = "Plinth API", description = "Multi-site headless CMS. Every failure is RFC 7807 problem+json with a stable `code`; `GET /api/v1/error-codes` lists them."),
    paths(
        system::version, system::health, system::public_config, system::imprint, system::error_codes,
        api_keys::create_api_key, api_keys::list_api_keys, api_keys::revoke_api_key,
        locales::list_locales, locales::create_locale, locales::update_locale, locales::delete_locale,
        sites::list_sites, sites::create_site, sites::list_deleted_sites, sites::get_site, sites::get_site_by_slug,
        sites::update_site, sites::delete_site,
        sites::get_settings, sites::update_settings,
        sites::list_site_locales, sites::add_site_locale, sites::update_site_locale, sites::delete_site_locale,
        sites::set_default_site_locale,
        blogs::list_blogs, blogs::list_published_blogs, blogs::list_featured_blogs, blogs::similar_blogs, blogs::get_blog_by_slug,
        blogs::get_blog, blogs::get_blog_detail, blogs::create_blog, blogs::update_blog, blogs::delete_blog, blogs::clone_blog,
        blogs::review_blog, blogs::bulk_blogs, blogs::list_blog_localizations, blogs::create_blog_localization,
        blogs::update_blog_localization, blogs::delete_blog_localization, blogs::seed_blogs, blogs::delete_sample_blogs,
        taxonomy::list_categories, taxonomy::create_category, taxonomy::update_category, taxonomy::delete_category,
        taxonomy::list_tags, taxonomy::create_tag, taxonomy::update_tag, taxonomy::delete_tag,
    ),
    components(schemas(crate::error::Problem, crate::error::FieldError, crate::pagination::PageMeta)),
    modifiers(&SecuritySchemes, &PrefixPaths),
)]
struct ApiDoc;

struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components
            .add_security_scheme("api_key", SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-API-Key"))));
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).bearer_format("JWT").build()),
        );
    }
}

struct PrefixPaths;

impl Modify for PrefixPaths {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let old = std::mem::take(&mut openapi.paths.paths);
        let mut paths = Paths::new();
        for (path, item) in old {
            paths.paths.insert(format!("/api/v1{}", if path == "/" { "/" } else { &path }), item);
        }
        openapi.paths = paths;
    }
}

pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}
