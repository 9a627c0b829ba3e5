//! The permission table, checked from the outside: every kind of caller against a
//! representative endpoint of every permission level. The expectations are not
//! written per cell; they follow from two small tables (what role each caller has
//! on the site, and what each endpoint needs), so adding a caller or an endpoint
//! keeps the matrix complete.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::idp::{add_member, app_with_idp, create_site_as, jwk, user_token, JwksServer};

/// Site roles, lowest first (the order the server ranks them in).
const ROLES: [&str; 6] = ["read", "author", "reviewer", "editor", "admin", "owner"];

fn rank(role: &str) -> usize {
    ROLES.iter().position(|r| *r == role).expect("a known role")
}

/// What a caller is on the matrix site.
#[derive(Clone, Copy)]
enum Standing {
    /// Acts with this site role.
    Role(&'static str),
    /// Acts as owner everywhere and may do system administration.
    SystemAdmin,
    /// An unscoped Admin key: site admin everywhere, and may manage global locales.
    UnscopedAdminKey,
    /// Has no access to the site; calls are refused with this code.
    Refused(&'static str),
}

/// What an endpoint needs.
#[derive(Clone, Copy)]
enum Needs {
    Role(&'static str),
    /// System admins and unscoped Admin keys (global locales).
    SystemAdministration,
    /// Giving someone the admin role: owners only; an admin hears
    /// MEMBER_ROLE_OWNER_REQUIRED, lower roles AUTH_INSUFFICIENT_ROLE.
    GrantAdmin,
}

struct Endpoint {
    needs: Needs,
    method: Method,
    /// `{site}` is replaced by the site id, `{n}` by a number unique to the call.
    path: &'static str,
    body: Option<&'static str>,
    success: u16,
    /// For endpoints checked past authorization only: the code that proves the
    /// caller was let through (the request itself is not meant to succeed).
    success_code: Option<&'static str>,
}

const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        needs: Needs::Role("read"),
        method: Method::GET,
        path: "/sites/{site}/blogs",
        body: None,
        success: 200,
        success_code: None,
    },
    Endpoint {
        needs: Needs::Role("author"),
        method: Method::POST,
        path: "/blogs",
        body: Some(r#"{"site_ids": ["{site}"], "title": "Matrix {n}"}"#),
        success: 201,
        success_code: None,
    },
    // Reviewing a draft gets past the reviewer check and is then refused for its
    // status, so one item serves every cell.
    Endpoint {
        needs: Needs::Role("reviewer"),
        method: Method::POST,
        path: "/blogs/{item}/review",
        body: Some(r#"{"action": "Approve"}"#),
        success: 400,
        success_code: Some("CONTENT_REVIEW_INVALID_STATUS"),
    },
    Endpoint {
        needs: Needs::Role("editor"),
        method: Method::POST,
        path: "/sites/{site}/redirects",
        body: Some(r#"{"source_path": "/old-{n}", "destination": "/new"}"#),
        success: 201,
        success_code: None,
    },
    // The origin admin's path and body for a site's social links.
    Endpoint {
        needs: Needs::Role("editor"),
        method: Method::POST,
        path: "/sites/{site}/social",
        body: Some(r#"{"title": "Matrix", "url": "https://example.org/{n}", "icon": "matrix", "display_order": 0}"#),
        success: 201,
        success_code: None,
    },
    // The site named in the body, not the path (the origin admin's form).
    Endpoint {
        needs: Needs::Role("editor"),
        method: Method::POST,
        path: "/tags",
        body: Some(r#"{"slug": "matrix-{n}", "is_global": false, "site_id": "{site}"}"#),
        success: 201,
        success_code: None,
    },
    Endpoint {
        needs: Needs::Role("admin"),
        method: Method::GET,
        path: "/sites/{site}/settings",
        body: None,
        success: 200,
        success_code: None,
    },
    Endpoint {
        needs: Needs::Role("owner"),
        method: Method::POST,
        path: "/sites/{site}/reset-content",
        body: None,
        success: 200,
        success_code: None,
    },
    Endpoint {
        needs: Needs::GrantAdmin,
        method: Method::POST,
        path: "/sites/{site}/members",
        body: Some(r#"{"idp_user_id": "granted-{n}", "role": "admin"}"#),
        success: 201,
        success_code: None,
    },
    Endpoint {
        needs: Needs::SystemAdministration,
        method: Method::POST,
        path: "/locales",
        body: Some(r#"{"code": "{locale}", "name": "Matrix {n}", "native_name": "Matrix", "direction": "ltr"}"#),
        success: 201,
        success_code: None,
    },
];

/// `Ok` when the caller may call the endpoint, else the exact refusal code.
fn expected(standing: Standing, needs: Needs) -> Result<(), &'static str> {
    match (standing, needs) {
        (Standing::Refused(code), Needs::Role(_)) => Err(code),
        (Standing::SystemAdmin, _) => Ok(()),
        (Standing::UnscopedAdminKey, Needs::SystemAdministration) => Ok(()),
        (Standing::UnscopedAdminKey, Needs::Role(needed)) => {
            if rank("admin") >= rank(needed) {
                Ok(())
            } else {
                Err("AUTH_INSUFFICIENT_ROLE")
            }
        }
        (Standing::Role(role), Needs::Role(needed)) => {
            if rank(role) >= rank(needed) {
                Ok(())
            } else {
                Err("AUTH_INSUFFICIENT_ROLE")
            }
        }
        (Standing::Role(_) | Standing::Refused(_), Needs::SystemAdministration) => Err("AUTH_INSUFFICIENT_ROLE"),
        (Standing::Refused(code), Needs::GrantAdmin) => Err(code),
        (Standing::UnscopedAdminKey, Needs::GrantAdmin) => Err("MEMBER_ROLE_OWNER_REQUIRED"),
        (Standing::Role(role), Needs::GrantAdmin) => match rank(role) {
            r if r >= rank("owner") => Ok(()),
            r if r >= rank("admin") => Err("MEMBER_ROLE_OWNER_REQUIRED"),
            _ => Err("AUTH_INSUFFICIENT_ROLE"),
        },
    }
}

enum Credential {
    Bearer(String),
    Key(String),
}

async fn call(
    app: &TestApp,
    credential: &Credential,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> reqwest::Response {
    match credential {
        Credential::Bearer(token) => app.bearer(method, path, token, body).await,
        Credential::Key(key) => app.request(method, path, Some(key), body).await,
    }
}

#[actix_web::test]
async fn every_caller_gets_exactly_what_the_permission_table_allows() {
    let jwks = JwksServer::start(vec![jwk("jwk_a.json")]);
    let app = app_with_idp(&jwks, &["root"]).await;
    let site = create_site_as(&app, &user_token("owner"), "matrix").await;
    let elsewhere = app.create_site_id("elsewhere").await;
    for role in ["read", "author", "reviewer", "editor", "admin"] {
        add_member(&app, &site, &format!("m-{role}"), role).await;
    }

    let draft = app.post("/blogs", &app.admin_key, json!({"site_ids": [site], "title": "Draft"})).await;
    let item = draft.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();

    let mut callers: Vec<(String, Credential, Standing)> = Vec::new();
    for role in ROLES {
        let sub = if role == "owner" { "owner".to_string() } else { format!("m-{role}") };
        callers.push((format!("{role} member"), Credential::Bearer(user_token(&sub)), Standing::Role(role)));
    }
    callers.push((
        "non-member".into(),
        Credential::Bearer(user_token("stranger")),
        Standing::Refused("AUTH_SITE_ACCESS_DENIED"),
    ));
    callers.push(("system admin".into(), Credential::Bearer(user_token("root")), Standing::SystemAdmin));
    for (permission, role) in [("Read", "read"), ("Write", "editor"), ("Admin", "admin")] {
        let scoped = app.create_key(permission, Some(&site)).await;
        callers.push((format!("{permission} key for the site"), Credential::Key(scoped), Standing::Role(role)));
        let other = app.create_key(permission, Some(&elsewhere)).await;
        let refused = Standing::Refused("AUTH_API_KEY_SITE_DENIED");
        callers.push((format!("{permission} key for another site"), Credential::Key(other), refused));
        let unscoped = app.create_key(permission, None).await;
        let standing = if permission == "Admin" { Standing::UnscopedAdminKey } else { Standing::Role(role) };
        callers.push((format!("unscoped {permission} key"), Credential::Key(unscoped), standing));
    }

    let locales =
        ["fr", "it", "es", "nl", "pt", "pl", "sv", "da", "fi", "cs", "hu", "ro", "el", "tr", "sk", "sl", "hr"];
    assert!(locales.len() >= callers.len());
    let mut failures = Vec::new();
    let mut cells = 0;
    for endpoint in ENDPOINTS {
        for (n, (name, credential, standing)) in callers.iter().enumerate() {
            let fill = |raw: &str| {
                raw.replace("{site}", &site)
                    .replace("{item}", &item)
                    .replace("{n}", &n.to_string())
                    .replace("{locale}", locales[n])
            };
            let path = fill(endpoint.path);
            let body = endpoint.body.map(|b| serde_json::from_str::<Value>(&fill(b)).expect("valid body template"));
            let res = call(&app, credential, endpoint.method.clone(), &path, body).await;
            let status = res.status().as_u16();
            let code = res.json::<Value>().await.ok().and_then(|v| v["code"].as_str().map(str::to_string));
            cells += 1;
            let ok = match expected(*standing, endpoint.needs) {
                Ok(()) => {
                    status == endpoint.success
                        && (endpoint.success_code.is_none() || code.as_deref() == endpoint.success_code)
                }
                Err(want) => status == 403 && code.as_deref() == Some(want),
            };
            if !ok {
                failures.push(format!(
                    "{name} → {} {path}: got {status} {code:?}, expected {:?}",
                    endpoint.method,
                    expected(*standing, endpoint.needs).map(|()| endpoint.success)
                ));
            }
        }
    }
    assert_eq!(cells, ENDPOINTS.len() * callers.len());
    assert!(failures.is_empty(), "{} of {cells} cells differ:\n{}", failures.len(), failures.join("\n"));
}
