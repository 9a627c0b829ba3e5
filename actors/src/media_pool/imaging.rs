//! The image work of the MediaPool, as plain functions: decode within pixel
//! limits, apply the EXIF orientation, resize with SIMD (`fast_image_resize`),
//! encode, and compute the ThumbHash placeholder and the dominant colour.
//! Re-encoding is also what strips EXIF/GPS metadata from every variant.

use std::io::Cursor;

use base64::Engine;
use fast_image_resize::images::Image;
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::{DynamicImage, ExtendedColorType, ImageDecoder, ImageEncoder, ImageReader, Limits};

/// The most pixels an image may claim before it is decoded (64 MP: a 12 MP
/// photo passes, a 1 KB file claiming 100k×100k pixels does not).
pub const MAX_PIXELS: u64 = 64_000_000;
/// Memory the decoder may allocate for one image.
const MAX_DECODE_ALLOC: u64 = 512 * 1024 * 1024;
const JPEG_QUALITY: u8 = 82;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ImageError {
    #[error("the image claims {width}x{height} pixels; at most {max} pixels are accepted")]
    TooManyPixels { width: u32, height: u32, max: u64 },
    #[error("the image cannot be decoded: {0}")]
    Undecodable(String),
    #[error("encoding failed: {0}")]
    Encode(String),
    /// The work panicked; the worker thread caught it and goes on.
    #[error("the image work failed on an internal fault: {0}")]
    Panicked(String),
}

/// One encoded picture: a variant of a media file or an icon of a favicon package.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub name: &'static str,
    pub width: u32,
    pub height: u32,
    pub mime_type: &'static str,
    pub bytes: Vec<u8>,
}

/// A decoded, upright image with its pixels in the layout the resizer wants.
pub struct Upright {
    pub pixels: Image<'static>,
}

impl Upright {
    pub fn width(&self) -> u32 {
        self.pixels.width()
    }

    pub fn height(&self) -> u32 {
        self.pixels.height()
    }
}

/// Reads the header only: refuses an image whose dimensions exceed
/// [`MAX_PIXELS`] before a byte of pixel memory is allocated.
pub fn check_dimensions(bytes: &[u8]) -> Result<(u32, u32), ImageError> {
    let (width, height) = reader(bytes)?.into_dimensions().map_err(|e| ImageError::Undecodable(e.to_string()))?;
    if u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(ImageError::TooManyPixels { width, height, max: MAX_PIXELS });
    }
    Ok((width, height))
}

fn reader(bytes: &[u8]) -> Result<ImageReader<Cursor<&[u8]>>, ImageError> {
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| ImageError::Undecodable(e.to_string()))?;
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    reader.limits(limits);
    Ok(reader)
}

/// Decodes (first frame of an animation), turned upright by its EXIF
/// orientation. Returns the EXIF orientation number (1 = upright) too.
pub fn decode_upright(bytes: &[u8]) -> Result<(Upright, u8), ImageError> {
    check_dimensions(bytes)?;
    let undecodable = |e: image::ImageError| ImageError::Undecodable(e.to_string());
    let mut decoder = reader(bytes)?.into_decoder().map_err(undecodable)?;
    let orientation = decoder.orientation().unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut image = DynamicImage::from_decoder(decoder).map_err(undecodable)?;
    image.apply_orientation(orientation);
    let (width, height) = (image.width(), image.height());
    let has_alpha = image.color().has_alpha();
    let (buffer, pixel_type) = if has_alpha {
        (image.into_rgba8().into_raw(), PixelType::U8x4)
    } else {
        (image.into_rgb8().into_raw(), PixelType::U8x3)
    };
    let pixels =
        Image::from_vec_u8(width, height, buffer, pixel_type).map_err(|e| ImageError::Undecodable(e.to_string()))?;
    Ok((Upright { pixels }, orientation.to_exif()))
}

/// `(width, height)` scaled so the longest edge is at most `edge`, never up.
pub fn fit_within(width: u32, height: u32, edge: u32) -> (u32, u32) {
    let longest = width.max(height);
    if longest <= edge {
        return (width, height);
    }
    let scale = f64::from(edge) / f64::from(longest);
    let scaled = |v: u32| ((f64::from(v) * scale).round() as u32).max(1);
    (scaled(width), scaled(height))
}

/// Resizes into `width`×`height`; `crop_center` (0..1 each) crops the source to
/// the destination's aspect ratio around that point instead of squeezing it.
pub fn resize(
    source: &Image<'_>,
    width: u32,
    height: u32,
    crop_center: Option<(f64, f64)>,
) -> Result<Image<'static>, ImageError> {
    let mut target = Image::new(width, height, source.pixel_type());
    let mut options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::CatmullRom));
    if let Some(center) = crop_center {
        options = options.fit_into_destination(Some(center));
    }
    Resizer::new().resize(source, &mut target, &options).map_err(|e| ImageError::Encode(e.to_string()))?;
    Ok(target)
}

/// JPEG for opaque pictures, PNG where there is transparency to keep.
pub fn encode(image: &Image<'_>, name: &'static str) -> Result<Rendered, ImageError> {
    let (width, height) = (image.width(), image.height());
    let mut bytes = Vec::new();
    let failed = |e: image::ImageError| ImageError::Encode(e.to_string());
    let mime_type = match image.pixel_type() {
        PixelType::U8x3 => {
            JpegEncoder::new_with_quality(&mut bytes, JPEG_QUALITY)
                .write_image(image.buffer(), width, height, ExtendedColorType::Rgb8)
                .map_err(failed)?;
            "image/jpeg"
        }
        _ => {
            encode_png(image, &mut bytes)?;
            "image/png"
        }
    };
    Ok(Rendered { name, width, height, mime_type, bytes })
}

pub fn encode_png(image: &Image<'_>, out: &mut Vec<u8>) -> Result<(), ImageError> {
    let color = if image.pixel_type() == PixelType::U8x3 { ExtendedColorType::Rgb8 } else { ExtendedColorType::Rgba8 };
    PngEncoder::new(out)
        .write_image(image.buffer(), image.width(), image.height(), color)
        .map_err(|e| ImageError::Encode(e.to_string()))
}

/// The ThumbHash (base64) and the average colour (`#rrggbb`) of a picture,
/// from a copy at most 100 pixels on its longest edge.
pub fn placeholder(image: &Image<'_>) -> Result<(String, String), ImageError> {
    let (width, height) = fit_within(image.width(), image.height(), 100);
    let small = resize(image, width, height, None)?;
    let rgba: Vec<u8> = match small.pixel_type() {
        PixelType::U8x3 => small.buffer().chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        _ => small.into_vec(),
    };
    let hash = thumbhash::rgba_to_thumb_hash(width as usize, height as usize, &rgba);
    let (r, g, b, _) =
        thumbhash::thumb_hash_to_average_rgba(&hash).map_err(|()| ImageError::Encode("thumbhash".into()))?;
    let channel = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let colour = format!("#{:02x}{:02x}{:02x}", channel(r), channel(g), channel(b));
    Ok((base64::engine::general_purpose::STANDARD.encode(hash), colour))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_within_never_enlarges() {
        assert_eq!(fit_within(4000, 3000, 1920), (1920, 1440));
        assert_eq!(fit_within(3000, 4000, 1920), (1440, 1920));
        assert_eq!(fit_within(300, 200, 1920), (300, 200));
        assert_eq!(fit_within(10_000, 1, 100), (100, 1));
    }

    #[test]
    fn a_bomb_header_is_refused_before_decoding() {
        // A PNG header claiming 100,000 × 100,000 pixels, and nothing else.
        let mut ihdr = b"IHDR".to_vec();
        ihdr.extend_from_slice(&100_000u32.to_be_bytes());
        ihdr.extend_from_slice(&100_000u32.to_be_bytes());
        ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\r".to_vec();
        png.extend_from_slice(&ihdr);
        png.extend_from_slice(&crc32(&ihdr).to_be_bytes());
        for (kind, body) in [(&b"IDAT"[..], &b"\x78\x9c\x03\x00\x00\x00\x00\x01"[..]), (b"IEND", b"")] {
            png.extend_from_slice(&(body.len() as u32).to_be_bytes());
            let chunk = [kind, body].concat();
            png.extend_from_slice(&chunk);
            png.extend_from_slice(&crc32(&chunk).to_be_bytes());
        }
        let refused = check_dimensions(&png);
        assert!(matches!(refused, Err(ImageError::TooManyPixels { width: 100_000, .. })), "{refused:?}");
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
}
