//! The OpenAPI document served at `/api-docs/openapi.json`. Handlers declare
//! paths relative to `/api/v1`; [`PrefixPaths`] adds the prefix.

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::Paths;
use utoipa::{Modify, OpenApi};

use crate::{content, taxonomy};

#[derive(OpenApi)]
#[openapi(
    info(title = "Plinth API", description = "Multi-site headless CMS. Every failure is RFC 7807 problem+json with a stable `code`; `GET /api/v1/error-codes` lists them.\n\n\
Each operation's description names who may call it. Site roles, lowest first: read, author, reviewer, editor, admin, owner; each has every right of those before it. An API key acts on the sites of its scope with the role of its permission: Read as read, Write as editor, Admin as admin, Master (never site-scoped) as owner of every site and system admin. \"JWT only\" operations refuse API keys (400 or 403, with the code each names).\n\n\
Besides the codes an operation names, every credentialed operation may answer 401 AUTH_MISSING_CREDENTIALS, AUTH_API_KEY_INVALID, AUTH_TOKEN_INVALID, AUTH_TOKEN_AUDIENCE or AUTH_TOKEN_ISSUER; 403 AUTH_SITE_ACCESS_DENIED, AUTH_API_KEY_SITE_DENIED, AUTH_INSUFFICIENT_ROLE, ACCOUNT_SUSPENDED or ACCOUNT_BANNED; 429 AUTH_RATE_LIMITED or RATE_LIMIT_EXCEEDED; and any operation 400 BAD_REQUEST or 422 VALIDATION_ERROR for a malformed request, 404 ENTITY_NOT_FOUND for an id that names nothing."),
    components(schemas(crate::error::Problem, crate::error::FieldError, crate::pagination::PageMeta)),
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

/// Handlers shared by several kinds are documented once, under the first kind's
/// paths; every other kind gets the same entries with its own paths, tags,
/// operation ids and codes.
struct DerivedKinds;

/// `(operations documented once, word to replace, singular to replace, the other
/// kinds as (singular, plural, tag))`
type Derivation =
    (&'static [&'static str], &'static str, &'static str, &'static [(&'static str, &'static str, &'static str)]);

const DERIVATIONS: [Derivation; 2] = [
    (
        &content::http::SHARED_OPERATIONS,
        "blogs",
        "blog",
        &[
            ("page", "pages", "Pages"),
            ("cv", "cv", "CV entries"),
            ("project", "projects", "Projects"),
            ("legal", "legal", "Legal documents"),
            ("skill", "skills", "Skills"),
        ],
    ),
    (&taxonomy::TAXONOMY_OPERATIONS, "categories", "category", &[("tag", "tags", "Taxonomy")]),
];

impl Modify for DerivedKinds {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (shared_ops, plural_word, singular_word, others) in DERIVATIONS {
            let shared: Vec<(String, utoipa::openapi::PathItem)> = openapi
                .paths
                .paths
                .iter()
                .filter(|(_, item)| {
                    operations(item).any(|op| op.operation_id.as_deref().is_some_and(|id| shared_ops.contains(&id)))
                })
                .map(|(path, item)| (path.clone(), item.clone()))
                .collect();
            let source_tag = if plural_word == "blogs" { "Blogs" } else { "Taxonomy" };
            for (singular, plural, tag) in others {
                for (path, item) in &shared {
                    let json = serde_json::to_string(item).unwrap_or_default();
                    let json = json
                        .replace(&format!("\"{source_tag}\""), &format!("\"{tag}\""))
                        .replace(plural_word, plural)
                        .replace(singular_word, singular)
                        .replace(&singular_word.to_uppercase(), &singular.to_uppercase());
                    if let Ok(item) = serde_json::from_str(&json) {
                        openapi.paths.paths.insert(path.replace(plural_word, plural), item);
                    }
                }
            }
        }
        cv_detail_is_the_plain_item(openapi);
        entry_type_filters_cv_only(openapi);
    }
}

/// `entry_type` filters CV entries only: every other kind's list refuses it
/// (400), so only the CV list documents it.
fn entry_type_filters_cv_only(openapi: &mut utoipa::openapi::OpenApi) {
    for (path, item) in openapi.paths.paths.iter_mut() {
        if path == "/sites/{site_id}/cv" {
            continue;
        }
        if let Some(parameters) = item.get.as_mut().and_then(|op| op.parameters.as_mut()) {
            parameters.retain(|p| p.name != "entry_type");
        }
    }
}

/// The spec gives a CV entry's `/detail` the shape of the plain item (the
/// handler answers `GET /cv/{id}`'s body), not the blog's `ContentDetail`.
fn cv_detail_is_the_plain_item(openapi: &mut utoipa::openapi::OpenApi) {
    let plain = openapi.paths.paths.get("/cv/{id}").and_then(|item| item.get.as_ref()).map(|op| op.responses.clone());
    let detail = openapi.paths.paths.get_mut("/cv/{id}/detail").and_then(|item| item.get.as_mut());
    if let (Some(plain), Some(detail)) = (plain, detail) {
        detail.responses = plain;
    }
}

fn operations(item: &utoipa::openapi::PathItem) -> impl Iterator<Item = &utoipa::openapi::path::Operation> {
    [&item.get, &item.put, &item.post, &item.delete, &item.patch].into_iter().flatten()
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

/// `GET /api-docs/openapi.json`: the document, serialized once per process.
pub async fn serve_document() -> actix_web::HttpResponse {
    static SERIALIZED: std::sync::OnceLock<actix_web::web::Bytes> = std::sync::OnceLock::new();
    let body = SERIALIZED.get_or_init(|| match serde_json::to_vec(&document()) {
        Ok(json) => json.into(),
        // Unreachable (the document is plain data); an empty object is still JSON.
        Err(_) => actix_web::web::Bytes::from_static(b"{}"),
    });
    actix_web::HttpResponse::Ok().content_type("application/json").body(body.clone())
}

/// The document: the shared parts, then every mounted route (`api::routes`),
/// the kinds derived from the documented ones, and the `/api/v1` prefix.
pub fn document() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    let (paths, schemas) = crate::api::routes().into_document_parts();
    doc.paths.merge(paths);
    let components = doc.components.get_or_insert_with(Default::default);
    for (name, schema) in schemas {
        components.schemas.entry(name).or_insert(schema);
    }
    CommonParts.modify(&mut doc);
    DerivedKinds.modify(&mut doc);
    crate::content::list_item_schemas::document_kind_list_items(&mut doc);
    PrefixPaths.modify(&mut doc);
    formats_as_patterns(doc)
}

/// A UUID: what `format: uuid` fields and parameters take (the server parses
/// every one and refuses anything else, the empty string included).
pub const UUID_PATTERN: &str = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
/// An RFC 3339 timestamp, as `format: date-time` fields take.
pub const DATE_TIME_PATTERN: &str = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$";
/// A date (`YYYY-MM-DD`), as `format: date` fields take.
pub const DATE_PATTERN: &str = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$";
/// A date (`YYYY-MM-DD`) or an RFC 3339 timestamp (`values::date_or_datetime`).
pub const DATE_OR_DATE_TIME_PATTERN: &str = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?$";
/// Multi-line text (`values::text`): no control character but TAB, LF and CR.
pub const TEXT_PATTERN: &str = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F]*$";
/// One line (`values::required_line`): no control character, bidi override or
/// isolate, zero width space or byte order mark, and not blank.
pub const LINE_PATTERN: &str = "^[^\\u0000-\\u001F\\u007F-\\u009F\\u200B\\u2028-\\u202E\\u2066-\\u2069\\uFEFF]*[^\\s\\u0000-\\u001F\\u007F-\\u009F\\u200B\\u2028-\\u202E\\u2066-\\u2069\\uFEFF][^\\u0000-\\u001F\\u007F-\\u009F\\u200B\\u2028-\\u202E\\u2066-\\u2069\\uFEFF]*$";
/// A slug (`values::Slug`): lowercase letters, digits and single hyphens, no hyphen at either end.
pub const SLUG_PATTERN: &str = "^[a-z0-9]+(-[a-z0-9]+)*$";
/// A path on the site (`redirects`): starts with `/`, no whitespace.
pub const PATH_PATTERN: &str = "^/\\S*$";
/// An absolute http(s) URL with a host (`values::link_target`), here limited to
/// plain host names and IP addresses.
pub const HTTP_URL_PATTERN: &str = "^https?://([A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*(:[0-9]{1,4})?(/\\S*)?$";
/// A site's base URL (`values::BaseUrl`): as [`HTTP_URL_PATTERN`] without a query
/// or fragment; blank for none.
pub const BASE_URL_PATTERN: &str =
    "^(\\s*|https?://([A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*(:[0-9]{1,4})?(/[^\\s?#]*)?)$";
/// A redirect's destination (`redirects::service`): a path on the site of at
/// most 500 characters, or an [`HTTP_URL_PATTERN`] URL (a test keeps the two
/// equal).
pub const REDIRECT_DESTINATION_PATTERN: &str =
    "^(/\\S{0,499}|https?://([A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*(:[0-9]{1,4})?(/\\S*)?)$";
/// The `site_ids` part of a media upload (`media::upload`): a JSON array of
/// at least one UUID, or UUIDs separated by commas; only JSON's whitespace
/// around them (what the server trims).
pub const SITE_IDS_PATTERN: &str =
    "^[ \\t\\n\\r]*(\\[[ \\t\\n\\r]*\"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\"([ \\t\\n\\r]*,[ \\t\\n\\r]*\"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\")*[ \\t\\n\\r]*\\]|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}([ \\t\\n\\r]*,[ \\t\\n\\r]*[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})*)[ \\t\\n\\r]*$";
/// A link target that may also be a path (`values::link_target` with
/// `allow_path`): a path starting with `/` without whitespace, or an
/// [`HTTP_URL_PATTERN`] URL (a test keeps the two equal).
pub const LINK_PATTERN: &str = "^(/\\S*|https?://([A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*(:[0-9]{1,4})?(/\\S*)?)$";
/// [`LINE_PATTERN`] where blank is allowed.
pub const OPTIONAL_LINE_PATTERN: &str =
    "^[^\\u0000-\\u001F\\u007F-\\u009F\\u200B\\u2028-\\u202E\\u2066-\\u2069\\uFEFF]*$";

/// The patterns schemas name by placeholder (`#[schema(pattern = "<line>")]`:
/// an attribute takes only a literal), so each is written once.
const NAMED_PATTERNS: [(&str, &str); 12] = [
    ("<slug>", SLUG_PATTERN),
    ("<optional slug>", "^([a-z0-9]+(-[a-z0-9]+)*)?$"),
    ("<path>", PATH_PATTERN),
    ("<http url>", HTTP_URL_PATTERN),
    ("<redirect destination>", REDIRECT_DESTINATION_PATTERN),
    ("<site ids>", SITE_IDS_PATTERN),
    ("<link>", LINK_PATTERN),
    ("<base url>", BASE_URL_PATTERN),
    ("<line>", LINE_PATTERN),
    ("<optional line>", OPTIONAL_LINE_PATTERN),
    ("<text>", TEXT_PATTERN),
    ("<date or date-time>", DATE_OR_DATE_TIME_PATTERN),
];

/// What a path parameter names, by its name, where its handler says nothing
/// more specific. Ids that name nothing (or nothing the caller may see) answer
/// 404.
const PATH_PARAMETERS: [(&str, &str); 16] = [
    ("id", "The id of the item the path names"),
    ("site_id", "The site's id (a UUID)"),
    ("loc_id", "The localization's id (a UUID)"),
    ("slug", "The slug of the site or item the path names"),
    ("blog_id", "The post's id (a UUID)"),
    ("locale_id", "The global locale's id (a UUID)"),
    ("form_id", "The form's id (a UUID)"),
    ("metadata_id", "The metadata entry's id (a UUID)"),
    ("job_id", "The export job's id (a UUID)"),
    ("doc_id", "The document's id (a UUID)"),
    ("note_id", "The note's id (a UUID)"),
    ("reference_code", "The reference code the submission's visitor was given"),
    ("entity_type", "The type of the audited item, as its audit entries record it (`blog`, `page`, `site`, ...)"),
    ("entity_id", "The id of the audited item"),
    ("idp_user_id", "The identity-provider user's id"),
    ("step", "The onboarding step's key"),
];

/// What a body property says, by its name, where its field says nothing more
/// specific: names that mean the same on every object.
const COMMON_PROPERTIES: [(&str, &str); 3] =
    [("id", "Its id"), ("created_at", "When it was created"), ("updated_at", "When it last changed")];

/// `format` alone does not constrain a value (JSON Schema 2020-12 treats it as
/// an annotation), so an empty string would pass for a UUID or a timestamp:
/// every such schema also gets the pattern the server's parser holds it to.
/// Placeholders of [`NAMED_PATTERNS`] become their patterns, and properties
/// without a description get their [`COMMON_PROPERTIES`] one.
fn formats_as_patterns(mut doc: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    use utoipa::openapi::path::ParameterIn;
    use utoipa::openapi::schema::{ArrayItems, Schema};
    use utoipa::openapi::{KnownFormat, RefOr, SchemaFormat};
    fn walk(schema: &mut RefOr<Schema>) {
        let RefOr::T(schema) = schema else { return };
        match schema {
            Schema::Object(object) => {
                let implied = match &object.format {
                    Some(SchemaFormat::KnownFormat(KnownFormat::Uuid)) => Some(UUID_PATTERN),
                    Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)) => Some(DATE_TIME_PATTERN),
                    Some(SchemaFormat::KnownFormat(KnownFormat::Date)) => Some(DATE_PATTERN),
                    _ => None,
                };
                if let (None, Some(pattern)) = (&object.pattern, implied) {
                    object.pattern = Some(pattern.to_string());
                }
                if let Some(named) = object.pattern.as_mut() {
                    if let Some((_, pattern)) = NAMED_PATTERNS.iter().find(|(name, _)| name == named) {
                        *named = pattern.to_string();
                    }
                }
                for (name, property) in object.properties.iter_mut() {
                    if let RefOr::T(Schema::Object(property)) = property {
                        if property.description.is_none() {
                            property.description = COMMON_PROPERTIES
                                .iter()
                                .find(|(common, _)| common == name)
                                .map(|(_, description)| description.to_string());
                        }
                    }
                    walk(property);
                }
            }
            Schema::Array(array) => {
                if let ArrayItems::RefOrSchema(items) = &mut array.items {
                    walk(items);
                }
            }
            Schema::OneOf(one_of) => one_of.items.iter_mut().for_each(walk),
            Schema::AllOf(all_of) => all_of.items.iter_mut().for_each(walk),
            Schema::AnyOf(any_of) => any_of.items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    if let Some(components) = doc.components.as_mut() {
        components.schemas.values_mut().for_each(walk);
    }
    for item in doc.paths.paths.values_mut() {
        for op in
            [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch].into_iter().flatten()
        {
            for parameter in op.parameters.iter_mut().flatten() {
                parameter.schema.iter_mut().for_each(walk);
                // utoipa drops the doc comment of a field whose schema is
                // `schema_with`: the parameter says what its schema says.
                if parameter.description.is_none() {
                    if let Some(RefOr::T(Schema::Object(object))) = &parameter.schema {
                        parameter.description = object.description.clone();
                    }
                }
                if parameter.description.is_none() && parameter.parameter_in == ParameterIn::Path {
                    parameter.description = PATH_PARAMETERS
                        .iter()
                        .find(|(name, _)| *name == parameter.name)
                        .map(|(_, description)| description.to_string());
                }
            }
            for content in op.request_body.iter_mut().flat_map(|body| body.content.values_mut()) {
                content.schema.iter_mut().for_each(walk);
            }
            for response in op.responses.responses.values_mut() {
                if let RefOr::T(response) = response {
                    response.content.values_mut().for_each(|content| content.schema.iter_mut().for_each(walk));
                }
            }
        }
    }
    doc
}

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
        for item in openapi.paths.paths.values_mut() {
            if let Some(read) = item.get.as_mut().filter(|op| !crate::routes::is_public(op)) {
                read.responses.responses.entry("304".to_string()).or_insert_with(|| not_modified.clone().into());
                read.parameters.get_or_insert_with(Vec::new).push(if_none_match.clone());
            }
            for op in
                [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch].into_iter().flatten()
            {
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

    #[test]
    fn a_redirect_destination_is_a_path_or_an_http_url() {
        let url = HTTP_URL_PATTERN.trim_start_matches('^').trim_end_matches('$');
        assert_eq!(REDIRECT_DESTINATION_PATTERN, format!("^(/\\S{{0,499}}|{url})$"));
        assert_eq!(LINK_PATTERN, format!("^(/\\S*|{url})$"));
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
