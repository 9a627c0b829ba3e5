//! The README's first hour, run as written: every shell block of "Your first
//! hour", in order, in one `bash` with `set -euo pipefail`, against a real
//! server, with only what a test must change substituted (each substitution
//! must find its text, so a README that changes it fails here too): the
//! server's address and key, a local webhook receiver for the example host,
//! and the event stream read for two seconds instead of until interrupted.
//! Needs `bash`, `curl` and `jq`, as the README's reader does.

use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::receiver::Receiver;

/// The `language` blocks of the README's "Your first hour", in order.
fn first_hour_blocks(readme: &str, language: &str) -> Vec<String> {
    let section = readme.split("\n## Your first hour").nth(1).expect("the README has a first hour");
    let section = section.split("\n## ").next().unwrap_or_default();
    let fence = format!("```{language}\n");
    section
        .split(fence.as_str())
        .skip(1)
        .map(|block| block.split("```").next().unwrap_or_default().to_string())
        .collect()
}

/// Runs `program` with the delivery in the environment; what it printed.
async fn verified_by(program: &str, args: &[&str], secret: &str, delivery: &crate::receiver::Received) -> String {
    let headers = serde_json::to_string(&delivery.headers).unwrap();
    let run = tokio::process::Command::new(program)
        .args(args)
        .env("SECRET", secret)
        .env("HEADERS", headers)
        .env("BODY", &delivery.raw_body)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(30), run).await.unwrap().expect("{program} runs");
    assert!(output.status.success(), "{program}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

#[actix_web::test]
async fn the_readmes_first_hour_runs_as_written() {
    let receiver = Receiver::start();
    let allowed = vec![receiver.host_port.clone()];
    let app = TestApp::spawn_with(move |c| c.ssrf_allowlist = allowed).await;
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let blocks = first_hour_blocks(&readme, "sh");
    assert!(blocks.len() >= 8, "{} blocks", blocks.len());
    let mut script = format!("set -euo pipefail\n{}", blocks.join("\n"));
    let stream = r#"curl -N -H "X-API-Key: $KEY" $API/sites/$SITE/events"#;
    for (written, here) in [
        ("API=http://127.0.0.1:8080/api/v1", format!("API={}", app.url(""))),
        ("KEY=plk_…", format!("KEY={}", app.admin_key)),
        ("https://hooks.example.org/plinth", receiver.url.clone()),
        // curl's exit 28 is its time running out, which is the point here.
        (
            stream,
            r#"curl --max-time 2 -s -N -H "X-API-Key: $KEY" $API/sites/$SITE/events || [ $? -eq 28 ]"#.to_string(),
        ),
    ] {
        assert!(script.contains(written), "the README no longer has {written:?}");
        script = script.replace(written, &here);
    }
    // The cover the walkthrough uploads, in the directory it runs in.
    let dir = tempfile::tempdir().unwrap();
    image::RgbImage::from_pixel(16, 16, image::Rgb([200, 150, 90])).save(dir.path().join("cover.jpg")).unwrap();

    let run = tokio::process::Command::new("bash").arg("-c").arg(&script).current_dir(dir.path()).output();
    let output = tokio::time::timeout(Duration::from_secs(120), run).await.expect("the walkthrough ends").unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "the walkthrough failed ({}):\n{stdout}\n{stderr}", output.status);
    for shown in ["Frisches Brot", "<language>de</language>", "whsec_", "reference_code", "Rye on Sundays?"] {
        assert!(stdout.contains(shown), "the walkthrough did not show {shown:?}:\n{stdout}");
    }
    let archive = std::fs::read(dir.path().join("bakery.zip")).expect("the export was downloaded");
    assert!(archive.starts_with(b"PK"), "a zip archive");

    // The signature recipes, on a real delivery to the walkthrough's webhook.
    let secret = stdout.split("\"secret\":\"").nth(1).and_then(|s| s.split('"').next()).expect("the secret shown");
    let sites: Vec<Value> = app.get("/sites", &app.admin_key).await.json().await.unwrap();
    let site = sites.iter().find(|s| s["slug"] == "bakery").expect("the walkthrough's site")["id"].clone();
    let posts = app.get(&format!("/sites/{}/blogs", site.as_str().unwrap()), &app.admin_key).await;
    let posts: Value = posts.json().await.unwrap();
    let post = posts["data"][0]["id"].as_str().unwrap().to_string();
    let res = app.put(&format!("/blogs/{post}"), &app.admin_key, json!({"excerpt": "Now at six."})).await;
    assert_eq!(res.status(), 200);
    let delivery = receiver.wait_for(1).await.into_iter().next().expect("a delivery");
    let [python] = first_hour_blocks(&readme, "python").try_into().expect("one Python recipe");
    let [js] = first_hour_blocks(&readme, "js").try_into().expect("one JavaScript recipe");
    let python = format!(
        "{python}\nimport json, os\nprint(verify(os.environ['SECRET'], json.loads(os.environ['HEADERS']), \
         os.environ['BODY'].encode()))"
    );
    let js =
        format!("{js}\nconsole.log(verify(process.env.SECRET, JSON.parse(process.env.HEADERS), process.env.BODY));");
    assert_eq!(verified_by("python3", &["-c", &python], secret, &delivery).await, "True");
    assert_eq!(verified_by("node", &["--input-type=module", "-e", &js], secret, &delivery).await, "true");
    let forged = "whsec_".to_string() + &base64::Engine::encode(&base64::engine::general_purpose::STANDARD, [7u8; 24]);
    assert_eq!(verified_by("python3", &["-c", &python], &forged, &delivery).await, "False", "another key fails");
}
