//! What the MediaPool makes of an uploaded picture: the four library variants,
//! the placeholder, and a favicon package.

use fast_image_resize::images::Image;
use fast_image_resize::PixelType;
use image::codecs::ico::{IcoEncoder, IcoFrame};
use image::ExtendedColorType;

use super::imaging::{self, decode_upright, encode, fit_within, placeholder, resize, ImageError, Rendered};

/// A library variant: the longest edge (the thumbnail is a square of that
/// side), never larger than the original.
pub struct VariantSpec {
    pub name: &'static str,
    pub edge: u32,
}

/// Largest first: each is resized from the one before it, which is much
/// cheaper than four resizes of a 12 MP original and looks the same.
pub const VARIANTS: [VariantSpec; 3] = [
    VariantSpec { name: "large", edge: 1920 },
    VariantSpec { name: "medium", edge: 1024 },
    VariantSpec { name: "small", edge: 480 },
];
/// The square thumbnail, cropped around the focal point (centre by default).
pub const THUMBNAIL: VariantSpec = VariantSpec { name: "thumbnail", edge: 150 };

#[derive(Debug)]
pub struct ProcessedImage {
    /// Of the upright picture.
    pub width: u32,
    pub height: u32,
    /// thumbnail, small, medium, large.
    pub variants: Vec<Rendered>,
    pub thumbhash: String,
    pub dominant_color: String,
    /// EXIF orientation of the original (1 = upright).
    pub orientation: u8,
}

pub fn process_image(bytes: &[u8], focal: Option<(f64, f64)>) -> Result<ProcessedImage, ImageError> {
    let (upright, orientation) = decode_upright(bytes)?;
    let (width, height) = (upright.width(), upright.height());
    let mut stages: Vec<Image<'static>> = Vec::with_capacity(VARIANTS.len());
    let mut variants = Vec::with_capacity(VARIANTS.len() + 1);
    for spec in &VARIANTS {
        let current = stages.last().unwrap_or(&upright.pixels);
        let (w, h) = fit_within(width, height, spec.edge);
        let next =
            if (w, h) == (current.width(), current.height()) { copy(current)? } else { resize(current, w, h, None)? };
        variants.push(encode(&next, spec.name)?);
        stages.push(next);
    }
    // The thumbnail comes from the smallest stage still at least its size.
    let side = THUMBNAIL.edge.min(width.min(height));
    let source = stages.iter().rev().find(|s| s.width().min(s.height()) >= side).unwrap_or(&upright.pixels);
    let centre = focal.map_or((0.5, 0.5), |(x, y)| (x.clamp(0.0, 1.0), y.clamp(0.0, 1.0)));
    let thumbnail = resize(source, side, side, Some(centre))?;
    let smallest = stages.last().unwrap_or(&upright.pixels);
    let (thumbhash, dominant_color) = placeholder(smallest)?;
    variants.reverse();
    variants.insert(0, encode(&thumbnail, THUMBNAIL.name)?);
    Ok(ProcessedImage { width, height, variants, thumbhash, dominant_color, orientation })
}

fn copy(image: &Image<'_>) -> Result<Image<'static>, ImageError> {
    Image::from_vec_u8(image.width(), image.height(), image.buffer().to_vec(), image.pixel_type())
        .map_err(|e| ImageError::Encode(e.to_string()))
}

/// The icons of a favicon package: PNGs, and `favicon.ico` holding 16, 32 and
/// 48. Cropped square around the centre; small sources are enlarged (a
/// package needs every size).
pub const FAVICON_PNGS: [(&str, u32); 5] = [
    ("favicon-16x16.png", 16),
    ("favicon-32x32.png", 32),
    ("apple-touch-icon.png", 180),
    ("android-chrome-192x192.png", 192),
    ("android-chrome-512x512.png", 512),
];
const ICO_SIZES: [u32; 3] = [16, 32, 48];

pub fn render_favicon(bytes: &[u8]) -> Result<Vec<Rendered>, ImageError> {
    let (upright, _) = decode_upright(bytes)?;
    let source = with_alpha(&upright.pixels)?;
    let square = |side: u32| resize(&source, side, side, Some((0.5, 0.5)));
    let mut icons = Vec::with_capacity(FAVICON_PNGS.len() + 1);
    let mut frames = Vec::with_capacity(ICO_SIZES.len());
    for side in ICO_SIZES {
        let icon = square(side)?;
        frames.push(
            IcoFrame::as_png(icon.buffer(), side, side, ExtendedColorType::Rgba8)
                .map_err(|e| ImageError::Encode(e.to_string()))?,
        );
    }
    let mut ico = Vec::new();
    IcoEncoder::new(&mut ico).encode_images(&frames).map_err(|e| ImageError::Encode(e.to_string()))?;
    icons.push(Rendered { name: "favicon.ico", width: 48, height: 48, mime_type: "image/x-icon", bytes: ico });
    for (name, side) in FAVICON_PNGS {
        let icon = square(side)?;
        let mut png = Vec::new();
        imaging::encode_png(&icon, &mut png)?;
        icons.push(Rendered { name, width: side, height: side, mime_type: "image/png", bytes: png });
    }
    Ok(icons)
}

/// RGBA pixels (icons keep transparency; an opaque source gets alpha 255).
fn with_alpha(image: &Image<'_>) -> Result<Image<'static>, ImageError> {
    if image.pixel_type() == PixelType::U8x4 {
        return copy(image);
    }
    let rgba: Vec<u8> = image.buffer().chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect();
    Image::from_vec_u8(image.width(), image.height(), rgba, PixelType::U8x4)
        .map_err(|e| ImageError::Encode(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jpeg(width: u32, height: u32) -> Vec<u8> {
        let pixels: Vec<u8> = (0..width * height).flat_map(|i| [(i % 251) as u8, 90, 200]).collect();
        let mut out = Vec::new();
        image::codecs::jpeg::JpegEncoder::new(&mut out)
            .encode(&pixels, width, height, ExtendedColorType::Rgb8)
            .expect("encodes");
        out
    }

    #[test]
    fn variants_are_made_in_order_and_never_enlarged() {
        let processed = process_image(&jpeg(1200, 600), None).expect("processes");
        let sizes: Vec<_> = processed.variants.iter().map(|v| (v.name, v.width, v.height)).collect();
        assert_eq!(sizes, [("thumbnail", 150, 150), ("small", 480, 240), ("medium", 1024, 512), ("large", 1200, 600)]);
        assert!(processed.variants.iter().all(|v| v.mime_type == "image/jpeg" && v.bytes.starts_with(&[0xFF, 0xD8])));
        assert_eq!((processed.width, processed.height), (1200, 600));
        assert!(processed.dominant_color.starts_with('#') && processed.dominant_color.len() == 7);
        assert!(!processed.thumbhash.is_empty());
    }

    #[test]
    fn favicon_package_has_every_size() {
        let icons = render_favicon(&jpeg(64, 48)).expect("renders");
        let names: Vec<_> = icons.iter().map(|i| (i.name, i.width)).collect();
        assert_eq!(names[0], ("favicon.ico", 48));
        assert_eq!(names.len(), 6);
        assert!(icons[5].bytes.starts_with(b"\x89PNG"));
        let ico = image::load_from_memory(&icons[0].bytes).expect("the ico decodes");
        assert_eq!(ico.width(), 48);
    }
}
