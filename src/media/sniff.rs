//! What a file is, judged from its bytes (`infer`), never from the name or the
//! client's `Content-Type`; then checked against the spec's allowed list.

/// The types the library accepts, with the file extensions each may carry.
const ALLOWED: &[(&str, &[&str])] = &[
    ("image/jpeg", &["jpg", "jpeg", "jpe", "jfif"]),
    ("image/png", &["png"]),
    ("image/webp", &["webp"]),
    ("image/gif", &["gif"]),
    ("image/svg+xml", &["svg"]),
    ("image/tiff", &["tif", "tiff"]),
    ("image/bmp", &["bmp"]),
    ("image/vnd.microsoft.icon", &["ico"]),
    ("image/x-icon", &["ico"]),
    ("video/mp4", &["mp4", "m4v"]),
    ("video/webm", &["webm"]),
    ("video/ogg", &["ogv", "ogg"]),
    ("video/x-msvideo", &["avi"]),
    ("video/quicktime", &["mov", "qt"]),
    ("audio/mpeg", &["mp3"]),
    ("audio/x-wav", &["wav"]),
    ("audio/wav", &["wav"]),
    ("audio/ogg", &["ogg", "oga", "opus"]),
    ("audio/aac", &["aac"]),
    ("audio/x-flac", &["flac"]),
    ("audio/flac", &["flac"]),
    ("audio/m4a", &["m4a"]),
    ("application/pdf", &["pdf"]),
    ("text/markdown", &["md", "markdown"]),
    ("text/plain", &["txt", "text", "log", "csv"]),
    ("application/zip", &["zip"]),
    ("application/gzip", &["gz", "tgz"]),
    ("application/x-tar", &["tar"]),
    ("application/x-7z-compressed", &["7z"]),
    ("application/vnd.rar", &["rar"]),
    ("application/x-bzip2", &["bz2"]),
    ("application/x-xz", &["xz"]),
];

/// The types the MediaPool decodes into variants.
pub fn is_raster_image(mime_type: &str) -> bool {
    matches!(mime_type, "image/jpeg" | "image/png" | "image/webp" | "image/gif")
}

/// Bytes to look at before deciding (enough for every magic number we use and
/// to tell text from binary).
pub const SNIFF_BYTES: usize = 8192;

#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Allowed(&'static str),
    /// What it is, and why it is refused.
    Refused(String),
}

/// Judges a file by its first bytes. The name decides only between markdown
/// and plain text, and refuses one disguise: a name that claims an image for
/// bytes that are text (HTML among them) or SVG, a page or script posing as a
/// picture. Executables are refused by type whatever their name. Any other
/// misnaming is ordinary (a PNG saved as `photo.jpg`): the bytes decide, and
/// [`name_for`] gives the stored file the extension of its type.
pub fn judge(head: &[u8], filename: &str) -> Verdict {
    let extension = extension_of_name(filename);
    let detected = detect(head, extension.as_deref());
    let Some(detected) = detected else {
        return Verdict::Refused("the file's content is not of a known type".into());
    };
    let Some((mime, extensions)) = ALLOWED.iter().find(|(mime, _)| *mime == detected) else {
        return Verdict::Refused(format!("files of type {detected} are not accepted"));
    };
    if let Some(ext) = extension.as_deref() {
        let claims_image = ALLOWED.iter().any(|(m, exts)| m.starts_with("image/") && exts.contains(&ext));
        let active_or_text = detected.starts_with("text/") || detected == "image/svg+xml";
        if claims_image && active_or_text && !extensions.contains(&ext) {
            return Verdict::Refused(format!("the name says .{ext} (an image) but the content is {detected}"));
        }
    }
    Verdict::Allowed(mime)
}

/// `filename` with an extension of `mime_type`: kept when it has one, its
/// known extension replaced (`photo.jpg` holding a PNG: `photo.png`), or one
/// added (`scan`, `notes.final`).
pub fn name_for(filename: &str, mime_type: &str) -> String {
    let Some((_, extensions)) = ALLOWED.iter().find(|(mime, _)| *mime == mime_type) else {
        return filename.to_string();
    };
    let extension = extension_of_name(filename);
    if extension.as_deref().is_some_and(|ext| extensions.contains(&ext)) {
        return filename.to_string();
    }
    let known = extension.as_deref().is_some_and(|ext| ALLOWED.iter().any(|(_, exts)| exts.contains(&ext)));
    let stem = match filename.rsplit_once('.') {
        Some((stem, _)) if known && !stem.is_empty() => stem,
        _ => filename,
    };
    format!("{stem}.{}", extension_of(mime_type))
}

fn extension_of_name(filename: &str) -> Option<String> {
    filename.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase())
}

fn detect(head: &[u8], extension: Option<&str>) -> Option<&'static str> {
    // Before `infer`, which calls any XML document text/xml.
    if looks_like_svg(head) {
        return Some("image/svg+xml");
    }
    if let Some(kind) = infer::get(head) {
        return Some(match kind.mime_type() {
            "audio/x-flac" => "audio/flac",
            "image/x-icon" => "image/vnd.microsoft.icon",
            other => other,
        });
    }
    // No magic number: text if it decodes as UTF-8 (the cut at SNIFF_BYTES may
    // split a character) and holds no control bytes but whitespace.
    let valid = match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && head.len() - e.valid_up_to() < 4,
    };
    let text = valid && !head.iter().any(|b| b.is_ascii_control() && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0C));
    match (text, extension) {
        (true, Some("md" | "markdown")) => Some("text/markdown"),
        (true, _) if !head.is_empty() => Some("text/plain"),
        _ => None,
    }
}

fn looks_like_svg(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&head[..head.len().min(1024)]).to_ascii_lowercase();
    let start = text.trim_start_matches('\u{feff}').trim_start();
    (start.starts_with("<?xml") || start.starts_with("<svg") || start.starts_with("<!doctype svg"))
        && text.contains("<svg")
}

/// The category `mime_category` filters by.
pub fn category_prefixes(category: &str) -> Option<&'static [&'static str]> {
    Some(match category {
        "image" => &["image/"],
        "video" => &["video/"],
        "audio" => &["audio/"],
        "document" => &["application/pdf", "text/"],
        _ => return None,
    })
}

/// The extension files of `mime_type` are stored and served with.
pub fn extension_of(mime_type: &str) -> &'static str {
    ALLOWED.iter().find(|(mime, _)| *mime == mime_type).and_then(|(_, exts)| exts.first().copied()).unwrap_or("bin")
}

/// A type from a name alone (records made from metadata, which have no bytes).
pub fn mime_from_name(filename: &str) -> Option<&'static str> {
    let ext = filename.rsplit_once('.')?.1.to_ascii_lowercase();
    ALLOWED.iter().find(|(_, exts)| exts.contains(&ext.as_str())).map(|(mime, _)| *mime)
}

pub fn is_allowed(mime_type: &str) -> bool {
    ALLOWED.iter().any(|(mime, _)| *mime == mime_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_decides_and_a_disguise_is_refused() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        assert_eq!(judge(png, "photo.png"), Verdict::Allowed("image/png"));
        assert_eq!(judge(png, "photo"), Verdict::Allowed("image/png"));
        assert!(matches!(judge(b"just some text", "photo.png"), Verdict::Refused(_)));
        assert_eq!(judge(b"# Title\n", "notes.md"), Verdict::Allowed("text/markdown"));
        assert_eq!(judge(b"hello", "notes.txt"), Verdict::Allowed("text/plain"));
        assert_eq!(
            judge(b"<?xml version='1.0'?><svg xmlns='http://www.w3.org/2000/svg'/>", "a.svg"),
            Verdict::Allowed("image/svg+xml")
        );
        // An ELF executable is of a known type, not an allowed one.
        assert!(matches!(judge(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0", "tool"), Verdict::Refused(_)));
        assert!(matches!(judge(b"\0\x01\x02binary", "x.bin"), Verdict::Refused(_)));
    }

    #[test]
    fn a_misnamed_file_is_taken_for_its_bytes_and_renamed_but_text_posing_as_an_image_is_not() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        assert_eq!(judge(png, "photo.jpg"), Verdict::Allowed("image/png"));
        assert_eq!(judge(png, "scan.pdf"), Verdict::Allowed("image/png"));
        assert_eq!(name_for("photo.jpg", "image/png"), "photo.png");
        assert_eq!(name_for("photo.JPEG", "image/jpeg"), "photo.JPEG");
        assert_eq!(name_for("scan", "image/png"), "scan.png");
        assert_eq!(name_for("notes.final", "text/plain"), "notes.final.txt");
        assert_eq!(name_for(".png", "image/jpeg"), ".png.jpg");
        for disguise in ["photo.png", "photo.jpg", "logo.svg", "icon.ico"] {
            assert!(
                matches!(judge(b"<html><script>alert(1)</script></html>", disguise), Verdict::Refused(_)),
                "{disguise}"
            );
        }
        let svg = b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>";
        assert!(matches!(judge(svg, "cat.png"), Verdict::Refused(_)));
        assert!(matches!(judge(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0", "cat.jpg"), Verdict::Refused(_)));
        // Text named as another text type, or a PDF named .txt, is fine.
        assert_eq!(judge(b"hello", "notes.md"), Verdict::Allowed("text/markdown"));
        assert_eq!(judge(b"%PDF-1.7\n", "report.txt"), Verdict::Allowed("application/pdf"));
    }
}
