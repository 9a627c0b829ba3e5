//! The matrix's rows: every operation of the served document whose path takes
//! an id, with the call that aims it at site B, and the exclusions.

use super::setup::CONTENT;

/// How a caller outside B is refused: (status, code).
#[derive(Clone, Copy, Debug)]
pub struct Refusal {
    pub key: (u16, &'static str),
    pub member: (u16, &'static str),
}

/// The rule for everything of a site: a key scoped elsewhere and a user who is
/// no member are refused on the site before anything else is looked at.
pub const SITE_DENIED: Refusal =
    Refusal { key: (403, "AUTH_API_KEY_SITE_DENIED"), member: (403, "AUTH_SITE_ACCESS_DENIED") };

pub enum Body {
    None,
    /// JSON with `{placeholders}` of site B.
    Json(String),
    /// A multipart upload of a small PNG (`site_ids` naming B when `true`).
    Png {
        site_ids: bool,
    },
}

pub struct Row {
    /// `METHOD /path` exactly as the document names it (without `/api/v1`).
    pub op: String,
    /// The path called, with `{placeholders}` of site B.
    pub call: String,
    pub body: Body,
    pub refusal: Refusal,
}

fn row(op: &str, call: &str, body: Option<&str>) -> Row {
    Row {
        op: op.to_string(),
        call: call.to_string(),
        body: body.map_or(Body::None, |b| Body::Json(b.to_string())),
        refusal: SITE_DENIED,
    }
}

fn refused(mut r: Row, refusal: Refusal) -> Row {
    r.refusal = refusal;
    r
}

/// Operations taking an id that are deliberately not in the matrix, each with
/// why: `public` (documented `security: []`, anyone may call them: site B's
/// public files and forms are meant to be reachable), `global` (not a site's:
/// the shared locale catalogue, administered by system admins) or `directory`
/// (the identity provider's user directory, which the spec opens to an admin of
/// any site: a user is no site's item).
pub const EXCLUDED: &[(&str, &str)] = &[
    ("GET /documents/{id}/download", "public"),
    ("POST /documents/{id}/verify-access", "public"),
    ("GET /files/{bucket}/{dir}/{name}", "public"),
    ("GET /public/forms/{slug}", "public"),
    ("GET /public/forms/{slug}/altcha-challenge", "public"),
    ("POST /public/forms/{slug}/submit", "public"),
    ("GET /public/submissions/{reference_code}", "public"),
    ("DELETE /public/submissions/{reference_code}", "public"),
    ("GET /sites/{slug}/browserconfig.xml", "public"),
    ("GET /sites/{slug}/robots.txt", "public"),
    ("GET /sites/{slug}/site.webmanifest", "public"),
    ("GET /sites/{slug}/sitemap.xml", "public"),
    ("GET /sites/{slug}/sitemap-{number}.xml", "public"),
    ("PUT /locales/{id}", "global"),
    ("DELETE /locales/{id}", "global"),
    ("GET /idp/users/{id}", "directory"),
    ("PUT /idp/users/{id}/role", "directory"),
];

/// The six content kinds share their routes.
fn content_rows(rows: &mut Vec<Row>) {
    for (name, plural) in CONTENT {
        let item = format!("/{plural}/{{{name}}}");
        let loc = format!("/{plural}/localizations/{{{name}_loc}}");
        let site = format!("/sites/{{site}}/{plural}");
        let edit = if name == "skill" { r#"{"name": "Alpha"}"# } else { r#"{"title": "Alpha"}"# };
        let localize = r#"{"locale_id": "{de}", "title": "Alpha"}"#;
        let bulk = format!(r#"{{"action": "Delete", "ids": ["{{{name}}}"]}}"#);
        for (op, call, body) in [
            (format!("GET /{plural}/{{id}}"), item.clone(), None),
            (format!("PUT /{plural}/{{id}}"), item.clone(), Some(edit)),
            (format!("DELETE /{plural}/{{id}}"), item.clone(), None),
            (format!("POST /{plural}/{{id}}/clone"), format!("{item}/clone"), None),
            (format!("GET /{plural}/{{id}}/detail"), format!("{item}/detail"), None),
            (format!("GET /{plural}/{{id}}/localizations"), format!("{item}/localizations"), None),
            (format!("POST /{plural}/{{id}}/localizations"), format!("{item}/localizations"), Some(localize)),
            (format!("GET /{plural}/{{id}}/preview"), format!("{item}/preview"), None),
            (format!("POST /{plural}/{{id}}/review"), format!("{item}/review"), Some(r#"{"action": "Approve"}"#)),
            (format!("POST /{plural}/{{id}}/lease"), format!("{item}/lease"), Some("{}")),
            (format!("DELETE /{plural}/{{id}}/lease"), format!("{item}/lease"), None),
            (format!("PUT /{plural}/localizations/{{loc_id}}"), loc.clone(), Some(r#"{"title": "Alpha"}"#)),
            (format!("DELETE /{plural}/localizations/{{loc_id}}"), loc.clone(), None),
            (format!("GET /sites/{{site_id}}/{plural}"), site.clone(), None),
            (format!("POST /sites/{{site_id}}/{plural}/bulk"), format!("{site}/bulk"), Some(bulk.as_str())),
            (
                format!("GET /sites/{{site_id}}/{plural}/by-slug/{{slug}}"),
                format!("{site}/by-slug/{{{name}_slug}}"),
                None,
            ),
            (format!("GET /sites/{{site_id}}/{plural}/published"), format!("{site}/published"), None),
        ] {
            rows.push(row(&op, &call, body));
        }
    }
    rows.push(row("GET /skills/by-slug/{slug}", "/skills/by-slug/{skill_slug}", None));
    rows.push(row("GET /sites/{site_id}/leases", "/sites/{site}/leases", None));
    rows.push(row("GET /sites/{site_id}/pages/by-route", "/sites/{site}/pages/by-route?route=/bravo-page", None));
    rows.push(row("POST /legal/{id}/versions", "/legal/{legal}/versions", None));
    // A legal document's consent groups and items one by one (the origin admin's paths).
    for (op, call, body) in [
        ("GET /sites/{site_id}/legal/cookie-consent", "/sites/{site}/legal/cookie-consent", None),
        ("GET /legal/{id}/groups", "/legal/{legal}/groups", None),
        ("POST /legal/{id}/groups", "/legal/{legal}/groups", Some(r#"{"cookie_name": "alpha"}"#)),
        ("PUT /legal/groups/{id}", "/legal/groups/{legal_group}", Some(r#"{"cookie_name": "alpha"}"#)),
        ("DELETE /legal/groups/{id}", "/legal/groups/{legal_group}", None),
        ("GET /legal/groups/{id}/items", "/legal/groups/{legal_group}/items", None),
        ("POST /legal/groups/{id}/items", "/legal/groups/{legal_group}/items", Some(r#"{"cookie_name": "alpha"}"#)),
        ("PUT /legal/items/{id}", "/legal/items/{legal_item}", Some(r#"{"cookie_name": "alpha"}"#)),
        ("DELETE /legal/items/{id}", "/legal/items/{legal_item}", None),
    ] {
        rows.push(row(op, call, body));
    }
    // A page's sections one by one (the origin admin's paths).
    for (op, call, body) in [
        ("GET /pages/{id}/sections", "/pages/{page}/sections", None),
        ("POST /pages/{id}/sections", "/pages/{page}/sections", Some(r#"{"section_type": "Cta"}"#)),
        (
            "POST /pages/{id}/sections/reorder",
            "/pages/{page}/sections/reorder",
            Some(r#"{"items": [{"id": "{section}", "display_order": 3}]}"#),
        ),
        ("GET /pages/{id}/sections/localizations", "/pages/{page}/sections/localizations", None),
        ("PUT /pages/sections/{id}", "/pages/sections/{section}", Some(r#"{"section_type": "Cta"}"#)),
        ("DELETE /pages/sections/{id}", "/pages/sections/{section}", None),
        ("GET /pages/sections/{id}/localizations", "/pages/sections/{section}/localizations", None),
        (
            "PUT /pages/sections/{id}/localizations",
            "/pages/sections/{section}/localizations",
            Some(r#"{"locale_id": "{de}", "title": "Alpha"}"#),
        ),
        ("DELETE /pages/sections/localizations/{id}", "/pages/sections/localizations/{section_loc}", None),
    ] {
        rows.push(row(op, call, body));
    }
    for (op, call, body) in [
        ("GET /sites/{site_id}/blogs/featured", "/sites/{site}/blogs/featured", None),
        ("DELETE /sites/{site_id}/blogs/samples", "/sites/{site}/blogs/samples", None),
        ("POST /sites/{site_id}/blogs/seed", "/sites/{site}/blogs/seed", None),
        ("GET /sites/{site_id}/blogs/{id}/similar", "/sites/{site}/blogs/{blog}/similar", None),
        ("GET /blogs/{blog_id}/documents", "/blogs/{blog}/documents", None),
        ("POST /blogs/{blog_id}/documents", "/blogs/{blog}/documents", Some(r#"{"document_id": "{document}"}"#)),
        ("DELETE /blogs/{blog_id}/documents/{doc_id}", "/blogs/{blog}/documents/{document}", None),
        ("GET /audit/entity/{entity_type}/{entity_id}", "/audit/entity/blog/{blog}", None),
        ("GET /audit/history/{entity_type}/{entity_id}", "/audit/history/blog/{blog}", None),
        ("DELETE /trash/{id}", "/trash/{trash}?entity_type=blog", None),
        ("POST /trash/{id}/restore", "/trash/{trash}/restore?entity_type=blog", None),
        ("GET /sites/{site_id}/trash", "/sites/{site}/trash", None),
        ("GET /sites/{site_id}/trash/count", "/sites/{site}/trash/count", None),
    ] {
        rows.push(row(op, call, body));
    }
}

/// Families with plain CRUD on `/{plural}/{id}` and a site collection.
fn family_rows(rows: &mut Vec<Row>) {
    const NAME: Option<&str> = Some(r#"{"name": "Alpha"}"#);
    for (op, call, body) in [
        ("PUT /categories/{id}", "/categories/{category}", NAME),
        ("DELETE /categories/{id}", "/categories/{category}", None),
        ("GET /categories/{id}/localizations", "/categories/{category}/localizations", None),
        (
            "POST /categories/{id}/localizations",
            "/categories/{category}/localizations",
            Some(r#"{"locale_id": "{de}", "name": "Alpha"}"#),
        ),
        ("PUT /categories/localizations/{loc_id}", "/categories/localizations/{category_loc}", NAME),
        ("DELETE /categories/localizations/{loc_id}", "/categories/localizations/{category_loc}", None),
        ("GET /sites/{site_id}/categories", "/sites/{site}/categories", None),
        ("POST /sites/{site_id}/categories", "/sites/{site}/categories", NAME),
        ("GET /sites/{site_id}/categories/blog-counts", "/sites/{site}/categories/blog-counts", None),
        (
            "POST /content/{content_id}/categories",
            "/content/{blog}/categories",
            Some(r#"{"category_id": "{category}"}"#),
        ),
        ("DELETE /content/{content_id}/categories/{category_id}", "/content/{blog}/categories/{category}", None),
        ("PUT /tags/{id}", "/tags/{tag}", NAME),
        ("DELETE /tags/{id}", "/tags/{tag}", None),
        ("GET /tags/{id}/localizations", "/tags/{tag}/localizations", None),
        (
            "POST /tags/{id}/localizations",
            "/tags/{tag}/localizations",
            Some(r#"{"locale_id": "{de}", "name": "Alpha"}"#),
        ),
        ("PUT /tags/localizations/{loc_id}", "/tags/localizations/{tag_loc}", NAME),
        ("DELETE /tags/localizations/{loc_id}", "/tags/localizations/{tag_loc}", None),
        ("GET /sites/{site_id}/tags", "/sites/{site}/tags", None),
        ("POST /sites/{site_id}/tags", "/sites/{site}/tags", NAME),
        ("PUT /document-folders/{id}", "/document-folders/{document_folder}", NAME),
        ("DELETE /document-folders/{id}", "/document-folders/{document_folder}", None),
        ("GET /sites/{site_id}/document-folders", "/sites/{site}/document-folders", None),
        ("POST /sites/{site_id}/document-folders", "/sites/{site}/document-folders", NAME),
        ("GET /documents/{id}", "/documents/{document}", None),
        ("PUT /documents/{id}", "/documents/{document}", Some(r#"{"url": "https://example.org/alpha.pdf"}"#)),
        ("DELETE /documents/{id}", "/documents/{document}", None),
        ("POST /documents/{id}/lease", "/documents/{document}/lease", Some("{}")),
        ("DELETE /documents/{id}/lease", "/documents/{document}/lease", None),
        ("GET /documents/{id}/detail", "/documents/{document}/detail", None),
        (
            "POST /documents/{id}/localizations",
            "/documents/{document}/localizations",
            Some(r#"{"locale_id": "{de}", "name": "Alpha"}"#),
        ),
        ("PUT /documents/localizations/{loc_id}", "/documents/localizations/{document_loc}", NAME),
        ("DELETE /documents/localizations/{loc_id}", "/documents/localizations/{document_loc}", None),
        (
            "POST /documents/{id}/privacy",
            "/documents/{document}/privacy",
            Some(r#"{"password": "alpha secret words"}"#),
        ),
        ("DELETE /documents/{id}/privacy", "/documents/{document}/privacy", None),
        ("POST /documents/{id}/unlock", "/documents/{document}/unlock", None),
        ("GET /sites/{site_id}/documents", "/sites/{site}/documents", None),
        (
            "POST /sites/{site_id}/documents",
            "/sites/{site}/documents",
            Some(r#"{"document_type": "pdf", "url": "https://example.org/a.pdf"}"#),
        ),
        ("PUT /media-folders/{id}", "/media-folders/{media_folder}", NAME),
        ("DELETE /media-folders/{id}", "/media-folders/{media_folder}", None),
        ("GET /sites/{site_id}/media-folders", "/sites/{site}/media-folders", None),
        ("POST /sites/{site_id}/media-folders", "/sites/{site}/media-folders", NAME),
        ("GET /media/{id}", "/media/{media}", None),
        ("PUT /media/{id}", "/media/{media}", Some(r#"{"filename": "alpha.png"}"#)),
        ("DELETE /media/{id}", "/media/{media}", None),
        ("POST /media/{id}/lease", "/media/{media}/lease", Some("{}")),
        ("DELETE /media/{id}/lease", "/media/{media}/lease", None),
        ("GET /media/{id}/metadata", "/media/{media}/metadata", None),
        ("POST /media/{id}/metadata", "/media/{media}/metadata", Some(r#"{"locale_id": "{de}", "alt_text": "Alpha"}"#)),
        ("GET /media/{id}/usage", "/media/{media}/usage", None),
        ("PUT /media/metadata/{metadata_id}", "/media/metadata/{media_metadata}", Some(r#"{"alt_text": "Alpha"}"#)),
        ("DELETE /media/metadata/{metadata_id}", "/media/metadata/{media_metadata}", None),
        ("GET /sites/{site_id}/media", "/sites/{site}/media", None),
        ("GET /menus/{id}", "/menus/{menu}", None),
        ("PUT /menus/{id}", "/menus/{menu}", NAME),
        ("DELETE /menus/{id}", "/menus/{menu}", None),
        ("POST /menus/{id}/lease", "/menus/{menu}/lease", Some("{}")),
        ("DELETE /menus/{id}/lease", "/menus/{menu}/lease", None),
        ("POST /menus/{id}/items", "/menus/{menu}/items", Some(r#"{"label": "Alpha", "url": "/"}"#)),
        ("PUT /menu-items/{id}", "/menu-items/{menu_item}", Some(r#"{"label": "Alpha"}"#)),
        ("DELETE /menu-items/{id}", "/menu-items/{menu_item}", None),
        ("GET /sites/{site_id}/menus", "/sites/{site}/menus", None),
        ("GET /menus/{id}/items", "/menus/{menu}/items", None),
        ("GET /menus/{id}/tree", "/menus/{menu}/tree", None),
        (
            "POST /menus/{id}/items/reorder",
            "/menus/{menu}/items/reorder",
            Some(r#"{"items": [{"id": "{menu_item}", "display_order": 4}]}"#),
        ),
        ("GET /navigation/{id}", "/navigation/{menu_item}", None),
        ("PUT /navigation/{id}", "/navigation/{menu_item}", Some(r#"{"icon": "alpha"}"#)),
        ("DELETE /navigation/{id}", "/navigation/{menu_item}", None),
        ("POST /navigation/{id}/lease", "/navigation/{menu_item}/lease", Some("{}")),
        ("DELETE /navigation/{id}/lease", "/navigation/{menu_item}/lease", None),
        ("GET /navigation/{id}/localizations", "/navigation/{menu_item}/localizations", None),
        ("PUT /navigation/{id}/localizations", "/navigation/{menu_item}/localizations", Some("[]")),
        ("GET /sites/{site_id}/navigation", "/sites/{site}/navigation", None),
        (
            "POST /sites/{site_id}/navigation",
            "/sites/{site}/navigation",
            Some(r#"{"menu_id": "{menu}", "url": "/alpha", "label": "Alpha"}"#),
        ),
        (
            "POST /sites/{site_id}/navigation/reorder",
            "/sites/{site}/navigation/reorder",
            Some(r#"{"items": [{"id": "{menu_item}", "display_order": 4}]}"#),
        ),
        ("POST /sites/{site_id}/menus", "/sites/{site}/menus", NAME),
        ("GET /content-templates/{id}", "/content-templates/{template}", None),
        ("PUT /content-templates/{id}", "/content-templates/{template}", Some(r#"{"title": "Alpha"}"#)),
        ("DELETE /content-templates/{id}", "/content-templates/{template}", None),
        ("GET /sites/{site_id}/content-templates", "/sites/{site}/content-templates", None),
        ("POST /sites/{site_id}/content-templates", "/sites/{site}/content-templates", Some(r#"{"name": "Alpha"}"#)),
        ("GET /redirects/{id}", "/redirects/{redirect}", None),
        ("PUT /redirects/{id}", "/redirects/{redirect}", Some(r#"{"destination": "/alpha"}"#)),
        ("DELETE /redirects/{id}", "/redirects/{redirect}", None),
        ("POST /redirects/{id}/lease", "/redirects/{redirect}/lease", Some("{}")),
        ("DELETE /redirects/{id}/lease", "/redirects/{redirect}/lease", None),
        ("GET /sites/{site_id}/redirects", "/sites/{site}/redirects", None),
        (
            "POST /sites/{site_id}/redirects",
            "/sites/{site}/redirects",
            Some(r#"{"source_path": "/a", "destination": "/b"}"#),
        ),
        ("GET /sites/{site_id}/redirects/resolve", "/sites/{site}/redirects/resolve?path=/bravo-old", None),
        ("PUT /social-links/{id}", "/social-links/{social_link}", Some(r#"{"label": "Alpha"}"#)),
        ("DELETE /social-links/{id}", "/social-links/{social_link}", None),
        ("POST /social-links/{id}/lease", "/social-links/{social_link}/lease", Some("{}")),
        ("DELETE /social-links/{id}/lease", "/social-links/{social_link}/lease", None),
        ("GET /sites/{site_id}/social-links", "/sites/{site}/social-links", None),
        (
            "POST /sites/{site_id}/social-links",
            "/sites/{site}/social-links",
            Some(r#"{"url": "https://example.org/a"}"#),
        ),
        ("POST /sites/{site_id}/legal", "/sites/{site}/legal", Some(r#"{"cookie_name": "alpha"}"#)),
        ("GET /social/{id}", "/social/{social_link}", None),
        ("PUT /social/{id}", "/social/{social_link}", Some(r#"{"title": "Alpha"}"#)),
        ("DELETE /social/{id}", "/social/{social_link}", None),
        ("GET /sites/{site_id}/social", "/sites/{site}/social", None),
        (
            "POST /sites/{site_id}/social",
            "/sites/{site}/social",
            Some(r#"{"title": "Alpha", "url": "https://example.org/a", "icon": "alpha", "display_order": 1}"#),
        ),
        (
            "POST /sites/{site_id}/social/reorder",
            "/sites/{site}/social/reorder",
            Some(r#"{"items": [{"id": "{social_link}", "display_order": 3}]}"#),
        ),
        ("PUT /environments/{id}", "/environments/{environment}", Some(r#"{"base_url": "https://alpha.example.org"}"#)),
        ("DELETE /environments/{id}", "/environments/{environment}", None),
        ("GET /sites/{site_id}/environments", "/sites/{site}/environments", None),
        ("POST /sites/{site_id}/environments", "/sites/{site}/environments", NAME),
        ("GET /sites/{site_id}/environments/default", "/sites/{site}/environments/default", None),
    ] {
        rows.push(row(op, call, body));
    }
}

pub fn rows() -> Vec<Row> {
    let mut rows = Vec::new();
    content_rows(&mut rows);
    family_rows(&mut rows);
    super::table_more::more_rows(&mut rows);
    rows
}

pub(super) fn push(rows: &mut Vec<Row>, list: &[(&str, &str, Option<&str>)]) {
    for (op, call, body) in list {
        rows.push(row(op, call, *body));
    }
}

pub(super) fn push_refused(rows: &mut Vec<Row>, refusal: Refusal, list: &[(&str, &str, Option<&str>)]) {
    for (op, call, body) in list {
        rows.push(refused(row(op, call, *body), refusal));
    }
}
