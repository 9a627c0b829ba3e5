//! Every documented operation is routed to its handler: the routes are mounted
//! as a tree of scopes, and no path of the document may fall through to the
//! not-found fallback or answer 405.

use reqwest::Method;
use serde_json::Value;

use crate::helpers::TestApp;

#[actix_web::test]
async fn every_documented_operation_reaches_a_handler() {
    let app = TestApp::spawn().await;
    let document: Value =
        app.client.get(format!("{}/api-docs/openapi.json", app.base)).send().await.unwrap().json().await.unwrap();
    let paths = document["paths"].as_object().expect("the document has paths");
    let mut checked = 0;
    for (path, operations) in paths {
        let relative = path.strip_prefix("/api/v1").unwrap_or(path);
        let concrete: String = relative
            .split('/')
            .map(
                |segment| if segment.starts_with('{') { uuid::Uuid::new_v4().to_string() } else { segment.to_string() },
            )
            .collect::<Vec<_>>()
            .join("/");
        for method in operations.as_object().unwrap().keys() {
            let Ok(method) = method.to_uppercase().parse::<Method>() else { continue };
            let res = app.request(method.clone(), &concrete, None, None).await;
            let status = res.status().as_u16();
            let body: Value = res.json().await.unwrap_or(Value::Null);
            assert_ne!(status, 405, "{method} {path}: {body}");
            assert_ne!(body["code"], "RESOURCE_NOT_FOUND", "{method} {path} fell through to the fallback");
            checked += 1;
        }
    }
    assert!(checked > 150, "only {checked} operations in the document");
}

/// Credentialed reads document the conditional request they answer.
#[actix_web::test]
async fn credentialed_reads_document_if_none_match_and_304() {
    let app = TestApp::spawn().await;
    let document: Value =
        app.client.get(format!("{}/api-docs/openapi.json", app.base)).send().await.unwrap().json().await.unwrap();
    let site_read = &document["paths"]["/api/v1/sites/{id}"]["get"];
    assert!(site_read["responses"]["304"].is_object(), "{site_read}");
    let params = site_read["parameters"].as_array().unwrap();
    assert!(params.iter().any(|p| p["name"] == "If-None-Match" && p["in"] == "header"), "{params:?}");
    let public_read = &document["paths"]["/api/v1/health"]["get"];
    assert!(public_read["responses"]["304"].is_null(), "public reads set their own caching");
}
