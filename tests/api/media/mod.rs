//! The media library over HTTP, with real image bytes made here.

mod favicon;
mod library;
mod uploads;

use image::codecs::gif::GifEncoder;
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::codecs::webp::WebPEncoder;
use image::{ExtendedColorType, ImageEncoder};
use reqwest::multipart::{Form, Part};
use reqwest::Response;
use serde_json::Value;

use crate::helpers::TestApp;

/// A gradient, so encoders and resizers have something to do.
fn rgb(width: u32, height: u32) -> Vec<u8> {
    (0..width * height).flat_map(|i| [(i % width * 255 / width) as u8, (i / width * 255 / height) as u8, 120]).collect()
}

fn rgba(width: u32, height: u32) -> Vec<u8> {
    rgb(width, height).chunks(3).flat_map(|p| [p[0], p[1], p[2], 128]).collect()
}

pub fn jpeg(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, 90)
        .write_image(&rgb(width, height), width, height, ExtendedColorType::Rgb8)
        .unwrap();
    out
}

/// A JPEG whose EXIF says "rotate 90° clockwise to show" and carries a
/// position that must not be served.
pub fn jpeg_with_exif(width: u32, height: u32) -> Vec<u8> {
    let plain = jpeg(width, height);
    let mut exif = b"Exif\0\0MM\0\x2a\0\0\0\x08\0\x01\x01\x12\0\x03\0\0\0\x01\0\x06\0\0\0\0\0\0".to_vec();
    exif.extend_from_slice(b"GPS 48.2082N 16.3738E secret");
    let mut out = plain[..2].to_vec();
    out.extend_from_slice(&[0xFF, 0xE1]);
    out.extend_from_slice(&((exif.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(&exif);
    out.extend_from_slice(&plain[2..]);
    out
}

pub fn png(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    PngEncoder::new(&mut out).write_image(&rgba(width, height), width, height, ExtendedColorType::Rgba8).unwrap();
    out
}

pub fn gif(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    GifEncoder::new(&mut out).encode(&rgba(width, height), width, height, ExtendedColorType::Rgba8).unwrap();
    out
}

pub fn webp(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    WebPEncoder::new_lossless(&mut out).encode(&rgba(width, height), width, height, ExtendedColorType::Rgba8).unwrap();
    out
}

/// A PNG of a few hundred bytes whose header claims 100,000 × 100,000 pixels.
pub fn png_bomb() -> Vec<u8> {
    let mut header = png(1, 1);
    header[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    header[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    // The IHDR CRC must match what it covers.
    let crc = crc32(&header[12..29]);
    header[29..33].copy_from_slice(&crc.to_be_bytes());
    header
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for byte in data {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// `POST /media/upload` with `site_ids` first, then the file.
pub async fn upload(app: &TestApp, key: &str, site_ids: &[&str], name: &str, bytes: Vec<u8>) -> Response {
    let form = Form::new()
        .text("site_ids", serde_json::to_string(site_ids).unwrap())
        .part("file", Part::bytes(bytes).file_name(name.to_string()));
    app.client.post(app.url("/media/upload")).header("X-API-Key", key).multipart(form).send().await.unwrap()
}

/// Uploads and expects 201; answers the record.
pub async fn uploaded(app: &TestApp, site: &str, name: &str, bytes: Vec<u8>) -> Value {
    let res = upload(app, &app.admin_key, &[site], name, bytes).await;
    assert_eq!(res.status(), 201, "upload of {name}");
    res.json().await.unwrap()
}
