//! Reference codes: a visitor's handle on a submission, read aloud or typed
//! from an email, so the alphabet avoids look-alikes.

use rand::Rng;

/// 28 symbols: A–Z and 2–9 without I, O (read as 1, 0) and B, G, S, Z (read
/// as 8, 6, 5, 2). 12 of them carry 12·log2(28) ≈ 57.7 bits.
pub const ALPHABET: &[u8; 28] = b"ACDEFHJKLMNPQRTUVWXY23456789";

/// A fresh code, `XXXX-XXXX-XXXX`.
pub fn generate() -> String {
    let mut rng = rand::rng();
    let mut code = String::with_capacity(14);
    for i in 0..12 {
        if i > 0 && i % 4 == 0 {
            code.push('-');
        }
        code.push(ALPHABET[rng.random_range(0..ALPHABET.len())] as char);
    }
    code
}

/// The stored form of what a visitor typed: upper case, separators and spaces
/// ignored; `None` unless it is 12 symbols of the alphabet.
pub fn normalize(raw: &str) -> Option<String> {
    let symbols: Vec<u8> = raw.bytes().filter(|b| !matches!(b, b'-' | b' ')).map(|b| b.to_ascii_uppercase()).collect();
    if symbols.len() != 12 || !symbols.iter().all(|b| ALPHABET.contains(b)) {
        return None;
    }
    let mut code = String::with_capacity(14);
    for (i, b) in symbols.iter().enumerate() {
        if i > 0 && i % 4 == 0 {
            code.push('-');
        }
        code.push(*b as char);
    }
    Some(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_have_the_documented_shape_and_normalize_back() {
        assert_eq!(ALPHABET.len(), 28);
        for forbidden in b"IO01" {
            assert!(!ALPHABET.contains(forbidden));
        }
        let code = generate();
        assert_eq!(code.len(), 14);
        assert_eq!(code.matches('-').count(), 2);
        assert_eq!(normalize(&code.to_lowercase().replace('-', " ")), Some(code.clone()));
        assert_eq!(normalize("AAAA-AAAA-AAAI"), None);
        assert_eq!(normalize("short"), None);
    }
}
