//! The OpenAPI document served at `/api-docs/openapi.json`. Handlers declare
//! paths relative to `/api/v1`; [`PrefixPaths`] adds the prefix.

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::Paths;
use utoipa::{Modify, OpenApi};

mod constraints;
pub mod examples;
mod kinds;

pub use constraints::*;
use kinds::DerivedKinds;

#[derive(OpenApi)]
#[openapi(
    info(title = "Plinth API", description = "Multi-site headless CMS. Every failure is RFC 7807 problem+json with a stable `code`; `GET /api/v1/error-codes` lists them.\n\n\
Each operation's description names who may call it. Site roles, lowest first: read, author, reviewer, editor, admin, owner; each has every right of those before it. An API key acts on the sites of its scope with the role of its permission: Read as read, Write as editor, Admin as admin, Master (never site-scoped) as owner of every site and system admin. \"JWT only\" operations refuse API keys (400 or 403, with the code each names).\n\n\
Besides the codes an operation names, every credentialed operation may answer 401 AUTH_MISSING_CREDENTIALS, AUTH_API_KEY_INVALID, AUTH_TOKEN_INVALID, AUTH_TOKEN_AUDIENCE or AUTH_TOKEN_ISSUER; 403 AUTH_SITE_ACCESS_DENIED, AUTH_API_KEY_SITE_DENIED, AUTH_INSUFFICIENT_ROLE, ACCOUNT_SUSPENDED or ACCOUNT_BANNED; 429 AUTH_RATE_LIMITED or RATE_LIMIT_EXCEEDED; and any operation 400 BAD_REQUEST or 422 VALIDATION_ERROR for a malformed request, 404 ENTITY_NOT_FOUND for an id that names nothing."),
    components(schemas(crate::error::Problem, crate::error::FieldError, crate::pagination::PageMeta)),
    servers((url = "/", description = "The server that serves this document (its served copy names the server's `PLINTH_PUBLIC_URL`); the paths start with /api/v1")),
    modifiers(&SecuritySchemes),
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

/// `GET /api-docs/openapi.json`: the document, serialized once per process
/// (one server per process), with that server's public URL as its server, so
/// a generated client has its base URL. The first request builds it on the blocking pool, not on a
/// request thread (about 40 ms of work and 14 MB of temporaries in a release
/// build).
pub async fn serve_document(
    state: actix_web::web::Data<crate::state::AppState>,
) -> crate::error::ApiResult<actix_web::HttpResponse> {
    static SERIALIZED: std::sync::OnceLock<actix_web::web::Bytes> = std::sync::OnceLock::new();
    let body = match SERIALIZED.get() {
        Some(body) => body.clone(),
        None => {
            let public_url = state.config.public_url();
            tokio::task::spawn_blocking(move || SERIALIZED.get_or_init(|| serialized_document(&public_url)).clone())
                .await
                .map_err(|e| crate::error::ApiError::internal(format!("building the document stopped: {e}")))?
        }
    };
    Ok(actix_web::HttpResponse::Ok().content_type("application/json").body(body))
}

fn serialized_document(public_url: &str) -> actix_web::web::Bytes {
    let mut served = document();
    let mut server = utoipa::openapi::server::Server::new(public_url);
    server.description = Some("This server; the paths start with /api/v1".into());
    served.servers = Some(vec![server]);
    let serialized = match serde_json::to_vec(&served) {
        Ok(json) => json.into(),
        // Unreachable (the document is plain data); an empty object is still JSON.
        Err(_) => actix_web::web::Bytes::from_static(b"{}"),
    };
    // The build's temporaries sit below the kept bytes.
    crate::footprint::return_freed_heap();
    serialized
}

/// The document: the shared parts, then every mounted route (`api::routes`),
/// the kinds derived from the documented ones, and the `/api/v1` prefix.
pub fn document() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    let (paths, schemas, shared) = crate::api::routes().into_document_parts();
    doc.paths.merge(paths);
    let components = doc.components.get_or_insert_with(Default::default);
    for (name, schema) in schemas {
        components.schemas.entry(name).or_insert(schema);
    }
    CommonParts.modify(&mut doc);
    DerivedKinds(shared).modify(&mut doc);
    crate::content::list_item_schemas::document_kind_list_items(&mut doc);
    examples::add_request_examples(&mut doc);
    PrefixPaths.modify(&mut doc);
    doc.tags = Some(
        TAG_ORDER
            .iter()
            .map(|(name, description)| {
                utoipa::openapi::tag::TagBuilder::new().name(*name).description(Some(*description)).build()
            })
            .collect(),
    );
    cross_field_rules(&mut doc);
    drop_unreferenced_schemas(&mut doc);
    formats_as_patterns(doc)
}

/// Drops the component schemas nothing in the document refers to, directly
/// or through another schema: the shared content bodies each kind has its
/// own copy of, a generic page's argument that its page holds inline. A
/// generated client would emit them as dead types (Redocly's
/// `no-unused-components`).
fn drop_unreferenced_schemas(doc: &mut utoipa::openapi::OpenApi) {
    fn refer(value: &serde_json::Value, into: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => map.iter().for_each(|(key, value)| {
                match value.as_str().and_then(|r| r.strip_prefix("#/components/schemas/")) {
                    Some(name) if key == "$ref" => into.push(name.to_owned()),
                    _ => refer(value, into),
                }
            }),
            serde_json::Value::Array(items) => items.iter().for_each(|item| refer(item, into)),
            _ => {}
        }
    }
    let Some(components) = doc.components.as_mut() else { return };
    let mut others = serde_json::to_value(&*components).unwrap_or_default();
    if let Some(map) = others.as_object_mut() {
        map.remove("schemas");
    }
    let mut waiting = Vec::new();
    refer(&serde_json::to_value(&doc.paths).unwrap_or_default(), &mut waiting);
    refer(&others, &mut waiting);
    let mut used = std::collections::BTreeSet::new();
    while let Some(name) = waiting.pop() {
        if used.insert(name.clone()) {
            if let Some(schema) = components.schemas.get(&name) {
                refer(&serde_json::to_value(schema).unwrap_or_default(), &mut waiting);
            }
        }
    }
    components.schemas.retain(|name, _| used.contains(name));
}

/// The document's tags in the order a newcomer meets them: sites and their
/// people first, then content, media and the site's other parts, then
/// integrations, then the deployment's own. Generated clients and docs pages
/// list operations in this order (a test keeps it to the tags in use).
const TAG_ORDER: [(&str, &str); 34] = [
    ("Sites", "The sites of the deployment: each a tenant with its own content, media, members, keys and webhooks"),
    ("Site locales", "The languages a site speaks: one default, served at the root, the others under their prefix"),
    ("Members", "Who works on a site, and in which role (Owner, Admin, Editor, Reviewer, Author, Viewer)"),
    ("API keys", "Keys for scripts and front ends: a permission, an optional site, and rate limits of their own"),
    ("Blogs", "Posts: localized, scheduled, reviewed; a front end reads them in a locale with media embedded"),
    ("Pages", "Pages with routes, a place in the navigation and sections of their own"),
    ("Projects", "Portfolio projects with their links and media (the portfolio module)"),
    ("CV entries", "Work, education and other entries of a CV (the CV module)"),
    ("Skills", "Skills with a category and a proficiency (the CV module)"),
    ("Legal documents", "Imprint, privacy policy, terms and cookie consent, with their consent groups and versions"),
    ("Taxonomy", "Categories and tags of a site, localized"),
    ("Media", "The media library: uploads checked and resized, variants, alt texts per locale, folders, favicons"),
    ("Documents", "Downloadable files and links, optionally private and encrypted (the documents module)"),
    ("Navigation", "Menus and their item trees, localized"),
    ("Redirects", "A site's redirects from old paths"),
    ("Social links", "A site's links to its social profiles, in order"),
    ("Forms", "Forms a site defines: fields, localizations, notifications and bot protection"),
    ("Form submissions", "What visitors sent through a site's forms, with notes and a review workflow"),
    ("Forms (public)", "What a site's visitors call: a form as rendered, its bot challenge, and their own submissions"),
    ("Content templates", "Starting points for new items of a kind"),
    ("Public site files", "What a public site serves by its slug: sitemaps, robots.txt, the web manifest"),
    ("Webhooks", "Signed deliveries of a site's events to an endpoint, retried on a schedule, with a circuit breaker"),
    ("Events", "A site's live event stream: server-sent events, resumable with Last-Event-ID"),
    ("Trash", "What was deleted, kept for restoring until it is purged"),
    ("Audit", "Who changed what and when, with each change's fields"),
    ("Analytics", "Page views a site's front end reports, and their daily figures"),
    ("AI", "Drafting and translating help from an AI provider a site configures"),
    ("Environments", "A site's environments (production, staging), each with its own base URL for previews"),
    ("Notifications", "What the signed-in user is told about the sites they work on"),
    ("Account", "The signed-in user's own account: help state, data export, deletion"),
    ("Locales", "The deployment's catalogue of locales that sites choose from"),
    ("Identity provider", "Users of the identity provider, as the deployment's admins manage them"),
    ("Moderation", "Bans and suspensions of users, by the deployment's admins"),
    ("System", "Health, readiness, metrics, the error codes and the service's own information"),
];

/// What every operation shares, applied once here instead of on each handler:
/// the security requirement (an API key or a bearer token) unless the handler
/// declares its own (`security(())` for public ones), the problem answer for
/// client errors unless the handler describes its 4XX itself, and on every
/// credentialed read the conditional request `http_cache` answers (an optional
/// `If-None-Match`, a `304`).
struct CommonParts;

impl Modify for CommonParts {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::SecurityRequirement;
        use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
        let empty: [&str; 0] = [];
        let default_security =
            vec![SecurityRequirement::new("api_key", empty), SecurityRequirement::new("bearer", empty)];
        let problem = ResponseBuilder::new()
            .description("")
            .content(
                "application/problem+json",
                ContentBuilder::new().schema(Some(Ref::from_schema_name("Problem"))).build(),
            )
            .build();
        let not_modified =
            ResponseBuilder::new().description("Not Modified: the `If-None-Match` tag still matches").build();
        let if_none_match = utoipa::openapi::path::ParameterBuilder::new()
            .name("If-None-Match")
            .parameter_in(utoipa::openapi::path::ParameterIn::Header)
            .required(utoipa::openapi::Required::False)
            .description(Some("An `ETag` of an earlier answer: `304` while it still matches"))
            .schema(Some(utoipa::openapi::ObjectBuilder::new().schema_type(utoipa::openapi::Type::String)))
            .build();
        let precondition_failed = ResponseBuilder::new()
            .description(
                "Precondition Failed: the item changed since the version `If-Match` names; `current_etag` is its \
                 tag now and `changed_fields` what changed since",
            )
            .content(
                "application/problem+json",
                ContentBuilder::new().schema(Some(Ref::from_schema_name("Problem"))).build(),
            )
            .build();
        let if_match = utoipa::openapi::path::ParameterBuilder::new()
            .name("If-Match")
            .parameter_in(utoipa::openapi::path::ParameterIn::Header)
            .required(utoipa::openapi::Required::False)
            .description(Some(
                "The `ETag` of the item as the caller read it (its `GET`, or the answer of its last write): the write \
                 is applied only if the item is still that version, else `412`. `*` takes any version; without \
                 the header the write is unconditional.",
            ))
            .schema(Some(utoipa::openapi::ObjectBuilder::new().schema_type(utoipa::openapi::Type::String)))
            .build();
        for (path, item) in openapi.paths.paths.iter_mut() {
            let an_item = path.contains('{') && item.get.as_ref().is_some_and(|op| !crate::routes::is_public(op));
            for (method, write) in [("PUT", &mut item.put), ("PATCH", &mut item.patch), ("DELETE", &mut item.delete)] {
                let Some(write) = write.as_mut().filter(|op| !crate::routes::is_public(op)) else { continue };
                let operation = format!("{method} {}", path.strip_prefix("/api/v1").unwrap_or(path));
                if an_item && !crate::preconditions::UNCONDITIONAL.iter().any(|(op, _)| *op == operation) {
                    write.parameters.get_or_insert_with(Vec::new).push(if_match.clone());
                    write.responses.responses.entry("412".into()).or_insert_with(|| precondition_failed.clone().into());
                }
            }
            if let Some(read) = item.get.as_mut().filter(|op| !crate::routes::is_public(op)) {
                read.responses.responses.entry("304".to_string()).or_insert_with(|| not_modified.clone().into());
                read.parameters.get_or_insert_with(Vec::new).push(if_none_match.clone());
            }
            for op in kinds::operations_mut(item) {
                op.security.get_or_insert_with(|| default_security.clone());
                op.responses.responses.entry("4XX".to_string()).or_insert_with(|| problem.clone().into());
                op.responses.responses.entry("5XX".to_string()).or_insert_with(|| problem.clone().into());
                // Failures are sent as problem+json, whatever a handler's
                // attribute wrote for them.
                for (status, response) in op.responses.responses.iter_mut() {
                    let failure = status.starts_with('4') || status.starts_with('5');
                    if let (true, utoipa::openapi::RefOr::T(response)) = (failure, response) {
                        if let Some(content) = response.content.shift_remove("application/json") {
                            response.content.insert("application/problem+json".to_string(), content);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::kinds::operations;
    use super::*;

    /// The public contract, kept in the repository as `openapi.json`, so every
    /// change to it shows in review. After an intended change,
    /// `PLINTH_UPDATE_OPENAPI=1 cargo test --lib openapi` rewrites the file.
    #[test]
    fn the_document_matches_its_snapshot() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi.json");
        // Keys sorted: schema extensions are kept in a hash map, whose order
        // changes from one process to the next.
        fn sorted(value: serde_json::Value) -> serde_json::Value {
            match value {
                serde_json::Value::Object(map) => {
                    let mut entries: Vec<_> = map.into_iter().collect();
                    entries.sort_by(|a, b| a.0.cmp(&b.0));
                    entries.into_iter().map(|(k, v)| (k, sorted(v))).collect()
                }
                serde_json::Value::Array(items) => items.into_iter().map(sorted).collect(),
                other => other,
            }
        }
        let document = serde_json::to_value(document()).expect("the document serializes");
        let served = serde_json::to_string_pretty(&sorted(document)).expect("the document serializes") + "\n";
        if std::env::var_os("PLINTH_UPDATE_OPENAPI").is_some() {
            std::fs::write(&path, &served).expect("openapi.json is writable");
        }
        let kept = std::fs::read_to_string(&path).unwrap_or_default();
        if let Some((n, (was, is))) = kept.lines().zip(served.lines()).enumerate().find(|(_, (a, b))| a != b) {
            panic!(
                "the served document differs from openapi.json at line {}:\n  kept:   {was}\n  served: {is}\n\
                 if the change is meant, run PLINTH_UPDATE_OPENAPI=1 cargo test --lib openapi and commit the file",
                n + 1
            );
        }
        assert_eq!(
            kept.lines().count(),
            served.lines().count(),
            "openapi.json and the served document differ in length"
        );
    }

    /// Every tag an operation carries is placed in [`TAG_ORDER`], once, and
    /// every placed tag is in use.
    #[test]
    fn the_tag_order_names_every_tag_in_use_once() {
        let doc = serde_json::to_value(document()).expect("the document serializes");
        let mut used: Vec<String> = Vec::new();
        for item in doc["paths"].as_object().into_iter().flat_map(|p| p.values()) {
            for op in item.as_object().into_iter().flat_map(|o| o.values()) {
                for tag in op["tags"].as_array().into_iter().flatten().filter_map(|t| t.as_str()) {
                    if !used.iter().any(|u| u == tag) {
                        used.push(tag.to_string());
                    }
                }
            }
        }
        used.sort();
        let mut placed: Vec<String> = TAG_ORDER.iter().map(|(t, _)| t.to_string()).collect();
        placed.sort();
        assert_eq!(placed, used, "TAG_ORDER and the tags in use differ");
    }

    /// Client generators name methods after operation ids; two operations with
    /// one id make the document unusable for them.
    #[test]
    fn every_operation_id_is_unique() {
        let doc = document();
        let mut seen: HashMap<String, String> = HashMap::new();
        for (path, item) in &doc.paths.paths {
            for op in operations(item) {
                let id = op.operation_id.clone().expect("every operation has an id");
                if let Some(first) = seen.insert(id.clone(), path.clone()) {
                    panic!("operation id {id} is used by {first} and {path}");
                }
            }
        }
        assert!(seen.len() > 100, "the document lists the API ({} operations)", seen.len());
    }

    /// Every UUID and timestamp carries its pattern, and no placeholder is left.
    #[test]
    fn formats_carry_patterns() {
        let text = serde_json::to_string(&document()).expect("the document serializes");
        assert!(!text.contains("\"pattern\":\"<"), "a placeholder is left");
        assert!(!text.contains("\"format\":\"uuid\"}"), "a uuid without its pattern");
    }

    /// The date patterns take exactly the dates chrono parses, leap years
    /// included, as a client's validator would run them (ECMAScript regex).
    #[test]
    fn date_patterns_take_exactly_the_dates_that_exist() {
        let date = regress::Regex::new(DATE_PATTERN).expect("the date pattern compiles");
        let date_time = regress::Regex::new(DATE_TIME_PATTERN).expect("the timestamp pattern compiles");
        let either = regress::Regex::new(DATE_OR_DATE_TIME_PATTERN).expect("the pattern compiles");
        for year in [1900, 2000, 2023, 2024, 2100, 2400] {
            for month in 1..=12 {
                for day in 1..=31 {
                    let text = format!("{year:04}-{month:02}-{day:02}");
                    let exists = chrono::NaiveDate::from_ymd_opt(year, month, day).is_some();
                    assert_eq!(date.find(&text).is_some(), exists, "{text}");
                    assert_eq!(either.find(&text).is_some(), exists, "{text}");
                    let stamp = format!("{text}T12:30:00.5+02:00");
                    assert_eq!(date_time.find(&stamp).is_some(), exists, "{stamp}");
                    assert_eq!(either.find(&stamp).is_some(), exists, "{stamp}");
                }
            }
        }
        assert!(date_time.find("2024-01-01T24:00:00Z").is_none());
        assert!(date.find("2024-01-01x").is_none());
    }

    /// A URL the server takes, the document takes: a validating client would
    /// otherwise refuse to send it.
    #[test]
    fn url_patterns_take_every_url_the_server_takes() {
        let taken = [
            "https://example.org",
            "https://example.org:44300/hook",
            "http://127.0.0.1:8080/receiver",
            "http://[::1]:9000/x?y=1",
            "https://a-b.example.co.uk/path#top",
            "http://localhost",
        ];
        for pattern in [HTTP_URL_PATTERN, REDIRECT_DESTINATION_PATTERN, LINK_PATTERN, BASE_URL_PATTERN] {
            let pattern = regress::Regex::new(pattern).unwrap();
            for url in taken {
                let url = if pattern.find("https://x.org/?q").is_none() {
                    url.split(['?', '#']).next().unwrap()
                } else {
                    url
                };
                assert!(crate::values::link_target("url", url, false).is_ok(), "the server takes {url}");
                assert!(pattern.find(url).is_some(), "{pattern:?} refuses {url}");
            }
            assert!(pattern.find("ftp://example.org").is_none());
            assert!(pattern.find("https://exa mple.org").is_none());
        }
        for path in ["/", "/blog/hello"] {
            assert!(regress::Regex::new(LINK_PATTERN).unwrap().find(path).is_some());
            assert!(regress::Regex::new(REDIRECT_DESTINATION_PATTERN).unwrap().find(path).is_some());
        }
    }

    /// Each cross-field rule lands on its schema (a renamed schema would
    /// otherwise drop it without a sound).
    #[test]
    fn cross_field_rules_are_written_on_their_schemas() {
        let doc = serde_json::to_value(document()).expect("the document serializes");
        for name in ["CreateCvEntry", "UpdateCvEntry", "CreateApiKey"] {
            let schema = &doc["components"]["schemas"][name];
            assert!(schema["if"]["required"].is_array(), "{name} has its condition");
            assert!(schema["then"]["properties"].is_object(), "{name} has its consequence");
        }
        assert_eq!(doc["components"]["schemas"]["CreateCvEntry"]["then"]["properties"]["end_date"]["type"], "null");
    }

    /// Every `$ref` names a schema of the document's components.
    #[test]
    fn no_reference_dangles() {
        let doc = serde_json::to_value(document()).expect("the document serializes");
        let text = doc.to_string();
        for reference in text.split("\"$ref\":\"#/components/schemas/").skip(1) {
            let name = reference.split('"').next().unwrap_or_default();
            assert!(doc["components"]["schemas"].get(name).is_some(), "#/components/schemas/{name} is not defined");
        }
    }

    #[test]
    fn a_cv_detail_is_documented_as_the_plain_item() {
        let doc = serde_json::to_value(document()).expect("the document serializes");
        let ok = |path: &str| doc["paths"][path]["get"]["responses"]["200"].clone();
        assert_eq!(ok("/api/v1/cv/{id}/detail"), ok("/api/v1/cv/{id}"));
        assert_ne!(ok("/api/v1/blogs/{id}/detail"), ok("/api/v1/blogs/{id}"));
    }

    /// Every failure is documented as what it is sent as: problem+json.
    #[test]
    fn failures_are_documented_as_problem_json() {
        let doc = document();
        for (path, item) in &doc.paths.paths {
            for op in operations(item) {
                for (status, response) in &op.responses.responses {
                    if let (true, utoipa::openapi::RefOr::T(response)) =
                        (status.starts_with('4') || status.starts_with('5'), response)
                    {
                        assert!(
                            !response.content.contains_key("application/json"),
                            "{path} {status} says application/json"
                        );
                    }
                }
            }
        }
    }
}
