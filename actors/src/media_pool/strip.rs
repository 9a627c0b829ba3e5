//! Removes EXIF, XMP and text metadata (camera serials, GPS positions) from an
//! original before it is served, without re-encoding it. A JPEG keeps its
//! orientation in a minimal EXIF block holding that one tag, so browsers still
//! show it upright. GIF, TIFF and other types are stored as uploaded.

/// The cleaned bytes, or `None` when the type is not one we clean or the file
/// is not well-formed enough to walk (it is then served as uploaded only if the
/// caller decides so; the MediaPool has already decoded it, so it is valid).
pub fn strip_metadata(mime_type: &str, bytes: &[u8], orientation: u8) -> Option<Vec<u8>> {
    match mime_type {
        "image/jpeg" => strip_jpeg(bytes, orientation),
        "image/png" => strip_png(bytes),
        "image/webp" => strip_webp(bytes),
        _ => None,
    }
}

/// EXIF "Exif\0\0" + big-endian TIFF header + one IFD entry (0x0112
/// Orientation, SHORT, 1) + no next IFD.
fn orientation_app1(orientation: u8) -> Vec<u8> {
    let mut exif = b"Exif\0\0MM\0\x2a\0\0\0\x08\0\x01\x01\x12\0\x03\0\0\0\x01\0".to_vec();
    exif.extend_from_slice(&[orientation, 0, 0, 0, 0, 0, 0]);
    let mut segment = vec![0xFF, 0xE1];
    segment.extend_from_slice(&((exif.len() + 2) as u16).to_be_bytes());
    segment.extend_from_slice(&exif);
    segment
}

fn strip_jpeg(bytes: &[u8], orientation: u8) -> Option<Vec<u8>> {
    if bytes.get(..2)? != [0xFF, 0xD8] {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(&[0xFF, 0xD8]);
    let mut at = 2;
    let mut orientation_written = orientation <= 1;
    loop {
        let marker = *bytes.get(at + 1)?;
        if *bytes.get(at)? != 0xFF {
            return None;
        }
        // Start of scan: the entropy-coded data and everything after it stays.
        if marker == 0xDA || marker == 0xD9 {
            if !orientation_written {
                out.extend_from_slice(&orientation_app1(orientation));
            }
            out.extend_from_slice(&bytes[at..]);
            return Some(out);
        }
        let length = usize::from(u16::from_be_bytes([*bytes.get(at + 2)?, *bytes.get(at + 3)?]));
        let end = at.checked_add(2 + length).filter(|end| *end <= bytes.len())?;
        // APP1 (EXIF, XMP), APP12 and APP13 (IPTC) and comments go.
        let drop = matches!(marker, 0xE1 | 0xEC | 0xED | 0xFE);
        if !drop {
            out.extend_from_slice(&bytes[at..end]);
            // After JFIF (APP0), where EXIF would have been.
            if marker == 0xE0 && !orientation_written {
                out.extend_from_slice(&orientation_app1(orientation));
                orientation_written = true;
            }
        } else if !orientation_written {
            out.extend_from_slice(&orientation_app1(orientation));
            orientation_written = true;
        }
        at = end;
    }
}

fn strip_png(bytes: &[u8]) -> Option<Vec<u8>> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if bytes.get(..8)? != SIGNATURE {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(SIGNATURE);
    let mut at = 8;
    while at < bytes.len() {
        let length = u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize;
        let kind = bytes.get(at + 4..at + 8)?;
        let end = at.checked_add(12 + length).filter(|end| *end <= bytes.len())?;
        if !matches!(kind, b"eXIf" | b"tEXt" | b"zTXt" | b"iTXt" | b"tIME") {
            out.extend_from_slice(&bytes[at..end]);
        }
        at = end;
    }
    Some(out)
}

fn strip_webp(bytes: &[u8]) -> Option<Vec<u8>> {
    if bytes.get(..4)? != b"RIFF" || bytes.get(8..12)? != b"WEBP" {
        return None;
    }
    let mut chunks = Vec::with_capacity(bytes.len());
    let mut at = 12;
    while at + 8 <= bytes.len() {
        let kind = bytes.get(at..at + 4)?;
        let size = u32::from_le_bytes(bytes.get(at + 4..at + 8)?.try_into().ok()?) as usize;
        let end = at.checked_add(8 + size + (size & 1))?.min(bytes.len());
        match kind {
            b"EXIF" | b"XMP " => {}
            b"VP8X" => {
                let mut chunk = bytes[at..end].to_vec();
                // Flags: clear "has EXIF" (0x08) and "has XMP" (0x04).
                if let Some(flags) = chunk.get_mut(8) {
                    *flags &= !0x0C;
                }
                chunks.extend_from_slice(&chunk);
            }
            _ => chunks.extend_from_slice(&bytes[at..end]),
        }
        at = end;
    }
    let mut out = Vec::with_capacity(chunks.len() + 12);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&u32::try_from(chunks.len() + 4).ok()?.to_le_bytes());
    out.extend_from_slice(b"WEBP");
    out.extend_from_slice(&chunks);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(marker: u8, body: &[u8]) -> Vec<u8> {
        let mut s = vec![0xFF, marker];
        s.extend_from_slice(&((body.len() + 2) as u16).to_be_bytes());
        s.extend_from_slice(body);
        s
    }

    #[test]
    fn jpeg_loses_exif_and_keeps_its_orientation() {
        let mut jpeg = vec![0xFF, 0xD8];
        jpeg.extend(segment(0xE0, b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0"));
        jpeg.extend(segment(0xE1, b"Exif\0\0GPS secret 48.2N 16.3E"));
        jpeg.extend(segment(0xDB, &[0; 65]));
        jpeg.extend([0xFF, 0xDA, 0, 2, 1, 2, 3, 0xFF, 0xD9]);
        let clean = strip_jpeg(&jpeg, 6).expect("well-formed");
        assert!(!clean.windows(10).any(|w| w == b"GPS secret"));
        assert!(clean.windows(6).any(|w| w == b"Exif\0\0"));
        assert_eq!(
            image::metadata::Orientation::from_exif_chunk(&orientation_app1(6)[10..]).map(|o| o.to_exif()),
            Some(6)
        );
        assert!(clean.ends_with(&[0xFF, 0xDA, 0, 2, 1, 2, 3, 0xFF, 0xD9]));
        let upright = strip_jpeg(&jpeg, 1).expect("well-formed");
        assert!(!upright.windows(4).any(|w| w == b"Exif"));
    }

    #[test]
    fn png_loses_text_and_exif_chunks() {
        let chunk = |kind: &[u8], body: &[u8]| {
            let mut c = (body.len() as u32).to_be_bytes().to_vec();
            c.extend_from_slice(kind);
            c.extend_from_slice(body);
            c.extend_from_slice(&[0, 0, 0, 0]);
            c
        };
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend(chunk(b"IHDR", &[0; 13]));
        png.extend(chunk(b"tEXt", b"Author\0Ann"));
        png.extend(chunk(b"eXIf", b"MM\0*GPS"));
        png.extend(chunk(b"IEND", b""));
        let clean = strip_png(&png).expect("well-formed");
        assert_eq!(clean.len(), 8 + 25 + 12);
        assert!(!clean.windows(3).any(|w| w == b"Ann"));
    }
}
