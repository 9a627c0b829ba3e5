//! The matrix's rows for sites themselves, people, forms, webhooks and the
//! site-wide services.

use super::table::{push, push_refused, Body, Refusal, Row, SITE_DENIED};

pub fn more_rows(rows: &mut Vec<Row>) {
    push(
        rows,
        &[
            ("GET /sites/{id}", "/sites/{site}", None),
            ("PUT /sites/{id}", "/sites/{site}", Some(r#"{"name": "Alpha"}"#)),
            ("DELETE /sites/{id}", "/sites/{site}", None),
            ("GET /sites/{id}/context", "/sites/{site}/context", None),
            ("POST /sites/{id}/reset-content", "/sites/{site}/reset-content", None),
            ("POST /sites/{id}/restore", "/sites/{site}/restore", None),
            ("GET /sites/by-slug/{slug}", "/sites/by-slug/{site_slug}", None),
            ("GET /sites/{site_id}/settings", "/sites/{site}/settings", None),
            ("PUT /sites/{site_id}/settings", "/sites/{site}/settings", Some(r#"{"contact_email": "a@example.org"}"#)),
            ("POST /sites/{site_id}/settings/lease", "/sites/{site}/settings/lease", Some("{}")),
            ("DELETE /sites/{site_id}/settings/lease", "/sites/{site}/settings/lease", None),
            (
                "PUT /sites/{site_id}/bot-protection",
                "/sites/{site}/bot-protection",
                Some(r#"{"regenerate_key": true}"#),
            ),
            ("GET /sites/{site_id}/locales", "/sites/{site}/locales", None),
            ("POST /sites/{site_id}/locales", "/sites/{site}/locales", Some(r#"{"locale_id": "{en}"}"#)),
            ("PUT /sites/{site_id}/locales/{locale_id}", "/sites/{site}/locales/{de}", Some(r#"{"is_active": false}"#)),
            ("DELETE /sites/{site_id}/locales/{locale_id}", "/sites/{site}/locales/{de}", None),
            ("PUT /sites/{site_id}/locales/{locale_id}/default", "/sites/{site}/locales/{de}/default", None),
            ("GET /sites/{site_id}/members", "/sites/{site}/members", None),
            (
                "POST /sites/{site_id}/members",
                "/sites/{site}/members",
                Some(r#"{"idp_user_id": "alpha-x", "role": "read"}"#),
            ),
            (
                "POST /sites/{site_id}/members/transfer-ownership",
                "/sites/{site}/members/transfer-ownership",
                Some(r#"{"idp_user_id": "alpha-member"}"#),
            ),
            ("PUT /sites/{site_id}/members/{id}", "/sites/{site}/members/{member}", Some(r#"{"role": "admin"}"#)),
            (
                "PUT /sites/{site_id}/members/{id}/role",
                "/sites/{site}/members/{member}/role",
                Some(r#"{"role": "admin"}"#),
            ),
            (
                "POST /sites/{site_id}/transfer-ownership",
                "/sites/{site}/transfer-ownership",
                Some(r#"{"new_owner_clerk_user_id": "alpha-member"}"#),
            ),
            ("DELETE /sites/{site_id}/members/{id}", "/sites/{site}/members/{member}", None),
            ("GET /sites/{site_id}/audit", "/sites/{site}/audit", None),
            ("GET /sites/{site_id}/events", "/sites/{site}/events", None),
            ("GET /sites/{site_id}/feed.rss", "/sites/{site}/feed.rss", None),
            ("GET /sites/{site_id}/onboarding", "/sites/{site}/onboarding", None),
            ("GET /sites/{site_id}/onboarding-progress", "/sites/{site}/onboarding-progress", None),
            ("POST /sites/{site_id}/export", "/sites/{site}/export", None),
            ("GET /sites/{site_id}/export/{job_id}", "/sites/{site}/export/{export_job}", None),
            (
                "GET /sites/{site_id}/export/{job_id}/download",
                "/sites/{site}/export/{export_job}/download?token={export_token}",
                None,
            ),
            ("GET /sites/{site_id}/favicon", "/sites/{site}/favicon", None),
            ("POST /sites/{site_id}/analytics/aggregate", "/sites/{site}/analytics/aggregate", None),
            ("POST /sites/{site_id}/analytics/pageview", "/sites/{site}/analytics/pageview", Some(r#"{"path": "/"}"#)),
            ("GET /sites/{site_id}/analytics/report", "/sites/{site}/analytics/report", None),
            ("GET /sites/{site_id}/analytics/report/page", "/sites/{site}/analytics/report/page?path=/", None),
            ("GET /sites/{site_id}/ai/settings", "/sites/{site}/ai/settings", None),
            ("GET /sites/{site_id}/ai/config", "/sites/{site}/ai/config", None),
            ("PUT /sites/{site_id}/ai/config", "/sites/{site}/ai/config", Some(r#"{"model": "alpha"}"#)),
            ("DELETE /sites/{site_id}/ai/config", "/sites/{site}/ai/config", None),
            ("POST /sites/{site_id}/ai/test", "/sites/{site}/ai/test", None),
            (
                "POST /sites/{site_id}/ai/models",
                "/sites/{site}/ai/models",
                Some(r#"{"base_url": "https://api.example.org/v1"}"#),
            ),
            (
                "POST /sites/{site_id}/ai/generate",
                "/sites/{site}/ai/generate",
                Some(r#"{"action": "seo", "content": "Alpha"}"#),
            ),
            ("PUT /sites/{site_id}/ai/settings", "/sites/{site}/ai/settings", Some(r#"{"model": "alpha"}"#)),
            (
                "POST /sites/{site_id}/ai/alt_text",
                "/sites/{site}/ai/alt_text",
                Some(r#"{"media_id": "{media}", "save": true}"#),
            ),
            ("POST /sites/{site_id}/ai/auto_tag", "/sites/{site}/ai/auto_tag", Some(r#"{"media_id": "{media}"}"#)),
            (
                "POST /sites/{site_id}/ai/section_content",
                "/sites/{site}/ai/section_content",
                Some(r#"{"section_type": "hero"}"#),
            ),
            (
                "POST /sites/{site_id}/ai/suggest",
                "/sites/{site}/ai/suggest",
                Some(r#"{"field": "title", "content": "x"}"#),
            ),
            (
                "POST /sites/{site_id}/ai/translate",
                "/sites/{site}/ai/translate",
                Some(r#"{"content_id": "{blog}", "target_locale": "de"}"#),
            ),
            ("DELETE /api-keys/{id}", "/api-keys/{api_key}", None),
            ("GET /api-keys/{id}", "/api-keys/{api_key}", None),
            ("GET /api-keys/{id}/usage", "/api-keys/{api_key}/usage", None),
            ("PUT /api-keys/{id}", "/api-keys/{api_key}", Some(r#"{"name": "Alpha key"}"#)),
            ("POST /api-keys/{id}/block", "/api-keys/{api_key}/block", Some(r#"{"reason": "Alpha"}"#)),
            ("POST /api-keys/{id}/unblock", "/api-keys/{api_key}/unblock", Some("{}")),
            ("POST /api-keys/{id}/revoke", "/api-keys/{api_key}/revoke", None),
            ("GET /webhooks/{id}", "/webhooks/{webhook}", None),
            ("PUT /webhooks/{id}", "/webhooks/{webhook}", Some(r#"{"description": "Alpha"}"#)),
            ("DELETE /webhooks/{id}", "/webhooks/{webhook}", None),
            ("POST /webhooks/{id}/lease", "/webhooks/{webhook}/lease", Some("{}")),
            ("DELETE /webhooks/{id}/lease", "/webhooks/{webhook}/lease", None),
            ("GET /webhooks/{id}/deliveries", "/webhooks/{webhook}/deliveries", None),
            ("GET /webhooks/{id}/stats", "/webhooks/{webhook}/stats", None),
            ("POST /webhooks/{id}/test", "/webhooks/{webhook}/test", None),
            ("POST /webhooks/deliveries/{id}/retry", "/webhooks/deliveries/{delivery}/retry", None),
            ("GET /sites/{site_id}/webhooks", "/sites/{site}/webhooks", None),
            ("POST /sites/{site_id}/webhooks", "/sites/{site}/webhooks", Some(r#"{"url": "https://example.org/a"}"#)),
        ],
    );
    rows.push(Row {
        op: "POST /sites/{site_id}/favicon".into(),
        call: "/sites/{site}/favicon".into(),
        body: Body::Png { site_ids: false },
        refusal: SITE_DENIED,
    });
    // Onboarding is for signed-in users only: the spec answers a key 400
    // ONBOARDING_REQUIRES_IDP on any site, so the key learns nothing of B.
    let users_only = Refusal { key: (400, "ONBOARDING_REQUIRES_IDP"), member: SITE_DENIED.member };
    push_refused(
        rows,
        users_only,
        &[
            (
                "POST /sites/{site_id}/onboarding/{step}",
                "/sites/{site}/onboarding/configure_site",
                Some(r#"{"step_key": "configure_site"}"#),
            ),
            (
                "PUT /sites/{site_id}/onboarding-progress",
                "/sites/{site}/onboarding-progress",
                Some(r#"{"step_key": "edit_first_post"}"#),
            ),
        ],
    );
    forms(rows);
    // Another user's notification: keys cannot use notifications at all, and a
    // user may only touch their own (whatever site it is about).
    let own_only = Refusal { key: (403, "NOTIFICATION_REQUIRES_IDP"), member: (403, "NOTIFICATION_ACCESS_DENIED") };
    push_refused(
        rows,
        own_only,
        &[
            ("POST /notifications/{id}/read", "/notifications/{notification}/read", None),
            ("PUT /notifications/{id}/read", "/notifications/{notification}/read", None),
        ],
    );
    // A site's notifications: a key has none, a user outside B reads none of B's.
    let users_of_the_site = Refusal { key: (403, "NOTIFICATION_REQUIRES_IDP"), member: SITE_DENIED.member };
    push_refused(
        rows,
        users_of_the_site,
        &[
            ("GET /sites/{site_id}/notifications", "/sites/{site}/notifications", None),
            ("GET /sites/{site_id}/notifications/unread-count", "/sites/{site}/notifications/unread-count", None),
            ("PUT /sites/{site_id}/notifications/read-all", "/sites/{site}/notifications/read-all", None),
        ],
    );
    // B's users as accounts: only system admins moderate accounts; a site
    // admin elsewhere is refused for its role.
    let system_only = Refusal { key: (403, "AUTH_INSUFFICIENT_ROLE"), member: (403, "AUTH_INSUFFICIENT_ROLE") };
    push_refused(
        rows,
        system_only,
        &[
            ("DELETE /admin/users/{idp_user_id}", "/admin/users/{member_user}", None),
            ("POST /admin/users/{idp_user_id}/ban", "/admin/users/{member_user}/ban", Some(r#"{"reason": "alpha"}"#)),
            (
                "POST /admin/users/{idp_user_id}/suspend",
                "/admin/users/{member_user}/suspend",
                Some(r#"{"reason": "alpha", "duration_hours": 1}"#),
            ),
            ("POST /admin/users/{idp_user_id}/unsuspend", "/admin/users/{member_user}/unsuspend", None),
        ],
    );
}

fn forms(rows: &mut Vec<Row>) {
    let fields = r#"[{"label": "email", "field_type": "email", "required": true}]"#;
    let form = format!(r#"{{"slug": "alpha-form", "name": "Alpha", "fields": {fields}}}"#);
    let template = format!(r#"{{"name": "Alpha template", "fields": {fields}}}"#);
    push(
        rows,
        &[
            ("GET /sites/{site_id}/forms", "/sites/{site}/forms", None),
            ("POST /sites/{site_id}/forms", "/sites/{site}/forms", Some(form.as_str())),
            ("GET /sites/{site_id}/forms/by-slug/{slug}", "/sites/{site}/forms/by-slug/{form_slug}", None),
            ("GET /forms/{id}", "/forms/{form}", None),
            ("PUT /forms/{id}", "/forms/{form}", Some(r#"{"name": "Alpha"}"#)),
            ("DELETE /forms/{id}", "/forms/{form}", None),
            ("POST /forms/{id}/lease", "/forms/{form}/lease", Some("{}")),
            ("DELETE /forms/{id}/lease", "/forms/{form}/lease", None),
            ("GET /forms/{form_id}/submissions", "/forms/{form}/submissions", None),
            ("GET /forms/{form_id}/submissions/status-counts", "/forms/{form}/submissions/status-counts", None),
            ("GET /sites/{site_id}/form-templates", "/sites/{site}/form-templates", None),
            ("POST /sites/{site_id}/form-templates", "/sites/{site}/form-templates", Some(template.as_str())),
            ("GET /form-templates/{id}", "/form-templates/{form_template}", None),
            ("PUT /form-templates/{id}", "/form-templates/{form_template}", Some(r#"{"name": "Alpha"}"#)),
            ("DELETE /form-templates/{id}", "/form-templates/{form_template}", None),
            ("GET /submissions/{id}", "/submissions/{submission}", None),
            ("DELETE /submissions/{id}", "/submissions/{submission}", None),
            ("PUT /submissions/{id}/status", "/submissions/{submission}/status", Some(r#"{"status": "in_review"}"#)),
            ("POST /submissions/{id}/notes", "/submissions/{submission}/notes", Some(r#"{"body": "Alpha"}"#)),
            ("DELETE /submissions/{id}/notes/{note_id}", "/submissions/{submission}/notes/{note}", None),
        ],
    );
}

/// Operations without an id in the path that still aim at B through their
/// body or query (creating in B, B's keys, reverting B's history), and
/// id-taking operations again with bodies that fail validation.
pub fn aimed_rows() -> Vec<Row> {
    let mut rows = Vec::new();
    let mut list = vec![
        ("GET /api-keys".to_string(), "/api-keys?site_id={site}".to_string(), None),
        (
            "POST /api-keys".into(),
            "/api-keys".into(),
            Some(r#"{"name": "Alpha", "permission": "Read", "site_id": "{site}"}"#.to_string()),
        ),
        (
            "POST /audit/history/revert".into(),
            "/audit/history/revert".into(),
            Some(r#"{"change_ids": ["{change}"]}"#.into()),
        ),
        ("POST /media".into(), "/media".into(), Some(r#"{"filename": "a.png", "site_ids": ["{site}"]}"#.into())),
    ];
    for (_, plural) in super::setup::CONTENT {
        let title = if plural == "skills" { "name" } else { "title" };
        let body = format!(r#"{{"site_ids": ["{{site}}"], "{title}": "Alpha"}}"#);
        list.push((format!("POST /{plural}"), format!("/{plural}"), Some(body)));
    }
    // Bodies the content engine refuses (the CV create above also lacks its
    // entry_type): the refusal on the site still comes first (an update's
    // checks read the item's current fields, so a 422 could tell an outsider
    // about them).
    list.push(("PUT /blogs/{id}".into(), "/blogs/{blog}".into(), Some(r#"{"slug": "Not a slug"}"#.into())));
    list.push(("PUT /cv/{id}".into(), "/cv/{cv}".into(), Some(r#"{"end_date": "2019-01-01"}"#.into())));
    for (op, call, body) in list {
        rows.push(Row { op, call, body: body.map_or(Body::None, Body::Json), refusal: SITE_DENIED });
    }
    rows.push(Row {
        op: "POST /media/upload".into(),
        call: "/media/upload".into(),
        body: Body::Png { site_ids: true },
        refusal: SITE_DENIED,
    });
    rows
}
