//! Hostile archives sent to `POST /sites/import`: a compression bomb is refused
//! from the archive's declared sizes before anything is inflated, in bounded
//! memory. The server runs as its own process, so its peak memory is its own.

use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cli::{peak_rss_kib, reset_peak_rss, Instance, INSTANCE_KEY};

/// A ZIP of a few MB whose `archive.json` inflates to 1.1 GiB of one string.
fn bomb() -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated).large_file(true);
    zip.start_file("archive.json", options).unwrap();
    zip.write_all(br#"{"format": 1, "site": ""#).unwrap();
    let block = vec![b'a'; 1024 * 1024];
    for _ in 0..1100 {
        zip.write_all(&block).unwrap();
    }
    zip.write_all(br#""}"#).unwrap();
    zip.finish().unwrap().into_inner()
}

#[actix_web::test]
async fn a_compression_bomb_is_refused_at_once_in_bounded_memory() {
    let bomb = bomb();
    assert!(bomb.len() < 8 * 1024 * 1024, "a bomb of {} bytes", bomb.len());
    let instance = Instance::new("127.0.0.1:9", &[]).await;
    let server = instance.start();
    let pid = server.0.id();
    reset_peak_rss(pid);
    let before = peak_rss_kib(pid);
    let started = Instant::now();
    let form =
        reqwest::multipart::Form::new().part("archive", reqwest::multipart::Part::bytes(bomb).file_name("bomb.zip"));
    let res = reqwest::Client::new()
        .post(format!("{}/sites/import", instance.api()))
        .header("X-API-Key", INSTANCE_KEY)
        .multipart(form)
        .send()
        .await
        .unwrap();
    let took = started.elapsed();
    let status = res.status().as_u16();
    let problem: Value = res.json().await.unwrap();
    let grown_kib = peak_rss_kib(pid).saturating_sub(before);
    println!("bomb refused in {took:?}, peak RSS grew {grown_kib} KiB: {problem}");
    assert_eq!((status, problem["code"].as_str()), (413, Some("PAYLOAD_TOO_LARGE")), "{problem}");
    assert!(problem["detail"].as_str().unwrap().contains("archive.json"), "{problem}");
    assert!(took < Duration::from_secs(10), "refused after {took:?}");
    assert!(grown_kib < 64 * 1024, "peak RSS grew {grown_kib} KiB");
    // Nothing was written: no site came of it, and no temporary file stayed.
    let sites: Value = reqwest::Client::new()
        .get(format!("{}/sites", instance.api()))
        .header("X-API-Key", INSTANCE_KEY)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(sites["meta"]["total"].as_u64().or(sites.as_array().map(|a| a.len() as u64)), Some(0), "{sites}");
    let tmp = instance.dir.path().join("data/tmp");
    let left = std::fs::read_dir(&tmp).map(|d| d.count()).unwrap_or(0);
    assert_eq!(left, 0, "temporary files left in {}", tmp.display());
}
