//! The constraints the server enforces, as the document states them: the
//! patterns of formats and named placeholders, the common descriptions, and
//! the rules between two fields of one body.

/// A UUID: what `format: uuid` fields and parameters take (the server parses
/// every one and refuses anything else, the empty string included).
pub const UUID_PATTERN: &str = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
/// A locale named by its UUID or its code (`values::LocaleName`).
pub const LOCALE_PATTERN: &str = "^[A-Za-z0-9_-]{1,36}$";
/// Locales named in order, comma-separated (`fallback=en,fr`).
pub const LOCALES_PATTERN: &str = "^[A-Za-z0-9_-]{1,36}(,[A-Za-z0-9_-]{1,36})*$";
/// A calendar date `YYYY-MM-DD` that exists, as chrono parses it: thirty days
/// hath April, June, September and November, and February 29 only in a leap
/// year (every fourth, but not a century unless the fourth). A pattern of
/// digit ranges alone lets 11-31 through, which the server refuses.
macro_rules! calendar_date {
    () => {
        concat!(
            "([0-9]{4}-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))",
            "|([0-9]{2}(0[48]|[2468][048]|[13579][26])|([02468][048]|[13579][26])00)-02-29)"
        )
    };
}
/// The time and offset of an RFC 3339 timestamp, after its `T`.
macro_rules! time_of_day {
    () => {
        "([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"
    };
}
/// An RFC 3339 timestamp, as `format: date-time` fields take.
pub const DATE_TIME_PATTERN: &str = concat!("^(", calendar_date!(), ")T", time_of_day!(), "$");
/// A date (`YYYY-MM-DD`), as `format: date` fields take.
pub const DATE_PATTERN: &str = concat!("^(", calendar_date!(), ")$");
/// A date (`YYYY-MM-DD`) or an RFC 3339 timestamp (`values::date_or_datetime`).
pub const DATE_OR_DATE_TIME_PATTERN: &str = concat!("^(", calendar_date!(), ")(T", time_of_day!(), ")?$");
/// Multi-line text (`values::text`): no control character but TAB, LF and CR.
pub const TEXT_PATTERN: &str = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F]*$";
/// One line (`values::required_line`): no control character, bidi override or
/// isolate, zero width space or byte order mark, and not blank.
pub const LINE_PATTERN: &str = "^[^\\u0000-\\u001F\\u007F-\\u009F\\u200B\\u2028-\\u202E\\u2066-\\u2069\\uFEFF]*[^\\s\\u0000-\\u001F\\u007F-\\u009F\\u200B\\u2028-\\u202E\\u2066-\\u2069\\uFEFF][^\\u0000-\\u001F\\u007F-\\u009F\\u200B\\u2028-\\u202E\\u2066-\\u2069\\uFEFF]*$";
/// A slug (`values::Slug`): lowercase letters, digits and single hyphens, no hyphen at either end.
pub const SLUG_PATTERN: &str = "^[a-z0-9]+(-[a-z0-9]+)*$";
/// A path on the site (`redirects`): starts with `/`, no whitespace.
pub const PATH_PATTERN: &str = "^/\\S*$";
/// The scheme, host and port of an absolute http(s) URL (`values::link_target`
/// takes what `url` parses with a host): a host name, an IPv4 address or an
/// IPv6 one in brackets, and any port of up to five digits. Every URL pattern
/// below is made from it.
macro_rules! http_origin {
    () => {
        "https?://(([A-Za-z0-9-]+\\.)*[A-Za-z0-9-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?"
    };
}
/// An absolute http(s) URL with a host.
pub const HTTP_URL_PATTERN: &str = concat!("^", http_origin!(), "(/\\S*)?$");
/// A site's base URL (`values::BaseUrl`): as [`HTTP_URL_PATTERN`] without a query
/// or fragment; blank for none.
pub const BASE_URL_PATTERN: &str = concat!("^(\\s*|", http_origin!(), "(/[^\\s?#]*)?)$");
/// A redirect's destination (`redirects::service`): a path on the site of at
/// most 500 characters, or an [`HTTP_URL_PATTERN`] URL.
pub const REDIRECT_DESTINATION_PATTERN: &str = concat!("^(/\\S{0,499}|", http_origin!(), "(/\\S*)?)$");
/// The `site_ids` part of a media upload (`media::upload`): a JSON array of
/// at least one UUID, or UUIDs separated by commas; only JSON's whitespace
/// around them (what the server trims).
pub const SITE_IDS_PATTERN: &str =
    "^[ \\t\\n\\r]*(\\[[ \\t\\n\\r]*\"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\"([ \\t\\n\\r]*,[ \\t\\n\\r]*\"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\")*[ \\t\\n\\r]*\\]|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}([ \\t\\n\\r]*,[ \\t\\n\\r]*[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})*)[ \\t\\n\\r]*$";
/// A link target that may also be a path (`values::link_target` with
/// `allow_path`): a path starting with `/` without whitespace, or an
/// [`HTTP_URL_PATTERN`] URL.
pub const LINK_PATTERN: &str = concat!("^(/\\S*|", http_origin!(), "(/\\S*)?)$");
/// [`LINE_PATTERN`] where blank is allowed.
pub const OPTIONAL_LINE_PATTERN: &str =
    "^[^\\u0000-\\u001F\\u007F-\\u009F\\u200B\\u2028-\\u202E\\u2066-\\u2069\\uFEFF]*$";

/// The patterns schemas name by placeholder (`#[schema(pattern = "<line>")]`:
/// an attribute takes only a literal), so each is written once.
const NAMED_PATTERNS: [(&str, &str); 15] = [
    ("<locale>", LOCALE_PATTERN),
    ("<locales>", LOCALES_PATTERN),
    ("<includes>", "^media(,media)*$"),
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
pub(super) fn formats_as_patterns(mut doc: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    use utoipa::openapi::path::ParameterIn;
    use utoipa::openapi::schema::{ArrayItems, Schema};
    use utoipa::openapi::{KnownFormat, RefOr, SchemaFormat};
    fn walk(schema: &mut RefOr<Schema>) {
        if let RefOr::T(schema) = schema {
            walk_schema(schema);
        }
    }
    fn walk_schema(schema: &mut Schema) {
        use utoipa::openapi::schema::AdditionalProperties;
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
                // A map's keys (`propertyNames`) and values.
                if let Some(names) = object.property_names.as_mut() {
                    walk_schema(names);
                }
                if let Some(AdditionalProperties::RefOr(values)) = object.additional_properties.as_deref_mut() {
                    walk(values);
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
        for op in super::kinds::operations_mut(item) {
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

/// Rules between two fields of one body that the server enforces, as JSON
/// Schema `if`/`then` (schema, condition, consequence). A generated client or
/// fuzzer then never sends what the server must refuse. (Rules that compare
/// two values, such as an end before its start, have no JSON Schema form.)
pub(super) fn cross_field_rules(doc: &mut utoipa::openapi::OpenApi) {
    use serde_json::json;
    use utoipa::openapi::{RefOr, Schema};
    let current_has_no_end = (
        json!({"properties": {"is_current": {"const": true}}, "required": ["is_current"]}),
        json!({"properties": {"end_date": {"type": "null"}}}),
    );
    let rules = [
        ("CreateCvEntry", current_has_no_end.clone()),
        ("UpdateCvEntry", current_has_no_end),
        (
            "CreateApiKey",
            (
                json!({"properties": {"permission": {"pattern": "^[Mm][Aa][Ss][Tt][Ee][Rr]$"}}, "required": ["permission"]}),
                json!({"properties": {"site_id": {"type": "null"}}}),
            ),
        ),
    ];
    let Some(components) = doc.components.as_mut() else { return };
    for (name, (condition, consequence)) in rules {
        let Some(RefOr::T(Schema::Object(object))) = components.schemas.get_mut(name) else {
            continue;
        };
        // utoipa 5 has no `if`/`then` fields; its extensions are written as
        // the object's own keys, which is where JSON Schema wants them.
        let keywords = object.extensions.get_or_insert_with(Default::default);
        keywords.insert("if".to_string(), condition);
        keywords.insert("then".to_string(), consequence);
    }
}
