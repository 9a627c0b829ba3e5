//! Field patterns: ECMAScript-flavoured regular expressions (like the HTML
//! `pattern` attribute) that submitted string values must match as a whole.
//!
//! Two engines, on purpose. Submissions are anonymous and hostile, and
//! `regress` (the ECMAScript engine) backtracks without a step limit, so
//! `^(a+)+$` against "aaaa…b" would stall a worker for ever. So:
//! - `regress` compiling with the `u` flag (as browsers compile `pattern`
//!   attributes) is the authority on syntax, so the browser widget and the
//!   server agree on what a valid pattern is;
//! - constructs that need backtracking (lookaround, backreferences) are
//!   refused when the form is saved, found by a scanner that knows escapes and
//!   character classes (`\(` is no group, `[(?=]` is no lookahead);
//! - matching runs on the `regex` crate (linear time) after translating the
//!   pattern with JS semantics (ASCII `\d`/`\w`/`\b`, JS `\s` and `.`), under a
//!   compiled-size limit so huge repetitions are refused at save time too.

use std::fmt::Write as _;

/// Longer values are never matched: the caller caps sizes anyway, and this
/// bounds the (linear) matching cost per field.
const MAX_VALUE_CHARS: usize = 10_000;
/// Keeps `(a{1000}){1000}` from eating memory: refused at save time instead.
const COMPILED_SIZE_LIMIT: usize = 256 * 1024;

/// JS `\s` (WhiteSpace and LineTerminator), as the inside of a class.
const JS_SPACE: &str = r"\x{09}-\x{0D} \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
const JS_DIGIT: &str = "0-9";
const JS_WORD: &str = "A-Za-z0-9_";
/// JS `.` without the `s` flag excludes all four line terminators.
const JS_DOT: &str = r"[^\n\r\x{2028}\x{2029}]";
/// JS `[]`: a class that matches nothing.
const NOTHING: &str = r"[^\x{0}-\x{10FFFF}]";

const LOOKAROUND: &str = "lookahead and lookbehind are not allowed";
const BACKREF: &str = "backreferences are not allowed";
const NOT_LINEAR: &str = "the pattern uses syntax the server cannot match in linear time";
const TOO_BIG: &str = "the pattern is too large to match efficiently; use smaller repetition counts";
const SURROGATE: &str = "lone surrogate escapes are not allowed";

/// A field pattern, checked when the form is saved and matched on every submit.
#[derive(Clone, Debug)]
pub struct FieldPattern {
    source: String,
    matcher: regex::Regex,
}

impl FieldPattern {
    pub const MAX_LEN: usize = 512;

    /// Err(message) explains what is wrong in one sentence fit for a 400
    /// detail (e.g. "lookahead and lookbehind are not allowed",
    /// "backreferences are not allowed", "not a valid ECMAScript regular
    /// expression: <regress error>").
    pub fn compile(source: &str) -> Result<FieldPattern, String> {
        if source.chars().count() > Self::MAX_LEN {
            return Err(format!("the pattern is longer than {} characters", Self::MAX_LEN));
        }
        // Syntax first, so the translator only ever sees valid ECMAScript.
        regress::Regex::with_flags(source, "u")
            .map_err(|e| format!("not a valid ECMAScript regular expression: {e}"))?;
        let translated = Translator::new(source).run()?;
        let matcher = regex::RegexBuilder::new(&format!("^(?:{translated})$"))
            .size_limit(COMPILED_SIZE_LIMIT)
            .dfa_size_limit(COMPILED_SIZE_LIMIT)
            .build()
            .map_err(|e| match e {
                regex::Error::CompiledTooBig(_) => TOO_BIG.to_string(),
                _ => NOT_LINEAR.to_string(),
            })?;
        Ok(FieldPattern { source: source.to_string(), matcher })
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the whole value matches. Linear time in the value's length;
    /// values longer than 10 000 characters never match.
    pub fn is_match(&self, value: &str) -> bool {
        if value.len() > MAX_VALUE_CHARS * 4 || value.chars().count() > MAX_VALUE_CHARS {
            return false;
        }
        self.matcher.is_match(value)
    }
}

/// Emits one literal char in a form the regex crate reads back as exactly
/// that char, inside or outside a class.
fn push_literal(out: &mut String, c: char) {
    if c.is_ascii_graphic() || c == ' ' {
        out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
    } else {
        let _ = write!(out, r"\x{{{:X}}}", u32::from(c));
    }
}

/// Rewrites a pattern `regress` has accepted (with `u`) into regex-crate
/// syntax with the same meaning, refusing what needs backtracking.
struct Translator {
    chars: Vec<char>,
    pos: usize,
    out: String,
}

impl Translator {
    fn new(source: &str) -> Self {
        Translator { chars: source.chars().collect(), pos: 0, out: String::with_capacity(source.len() * 2) }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn next(&mut self) -> Result<char, String> {
        let c = self.peek().ok_or_else(|| NOT_LINEAR.to_string())?;
        self.pos += 1;
        Ok(c)
    }

    fn eat(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(c);
        self.pos += usize::from(hit);
        hit
    }

    /// Copies up to and including `end`; regress has checked what is between.
    fn copy_through(&mut self, end: char) -> Result<(), String> {
        while !self.out.ends_with(end) {
            let c = self.next()?;
            self.out.push(c);
        }
        Ok(())
    }

    fn run(mut self) -> Result<String, String> {
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '\\' => self.escape()?,
                '[' => self.class()?,
                '.' => self.out.push_str(JS_DOT),
                '(' => self.group()?,
                ')' | '|' | '^' | '$' | '*' | '+' | '?' => self.out.push(c),
                // regress has checked it is `{n}`, `{n,}` or `{n,m}`: copy it.
                '{' => {
                    self.out.push(c);
                    self.copy_through('}')?;
                }
                _ => push_literal(&mut self.out, c),
            }
        }
        Ok(self.out)
    }

    /// Every group becomes non-capturing: only a yes/no answer is needed, and
    /// JS group names (`$`, escapes) are not all valid regex-crate names.
    fn group(&mut self) -> Result<(), String> {
        if self.eat('?') {
            match (self.peek(), self.peek_at(1)) {
                (Some(':'), _) => self.pos += 1,
                (Some('=' | '!'), _) | (Some('<'), Some('=' | '!')) => return Err(LOOKAROUND.into()),
                (Some('<'), _) => while self.next()? != '>' {},
                _ => return Err("inline modifier groups such as (?i:…) are not allowed".into()),
            }
        }
        self.out.push_str("(?:");
        Ok(())
    }

    /// An escape outside a character class (the backslash is consumed).
    fn escape(&mut self) -> Result<(), String> {
        if let Some((inner, negated)) = self.peek().and_then(shorthand) {
            self.pos += 1;
            let _ = write!(self.out, "[{}{inner}]", if negated { "^" } else { "" });
            return Ok(());
        }
        match self.peek() {
            // JS `\b` is defined over ASCII `\w`, hence the ASCII boundary.
            Some(c @ ('b' | 'B')) => {
                self.pos += 1;
                let _ = write!(self.out, r"(?-u:\{c})");
            }
            Some('1'..='9' | 'k') => return Err(BACKREF.into()),
            Some('p' | 'P') => self.property()?,
            _ => {
                let c = self.character_escape()?;
                push_literal(&mut self.out, c);
            }
        }
        Ok(())
    }

    /// `\p{…}` / `\P{…}` copied as is: the regex crate reads the same
    /// property names (`L`, `Script=Greek`, `Alphabetic`).
    fn property(&mut self) -> Result<(), String> {
        self.out.push('\\');
        self.copy_through('}')
    }

    /// A CharacterEscape (after the backslash) as the char it denotes.
    fn character_escape(&mut self) -> Result<char, String> {
        let c = self.next()?;
        Ok(match c {
            'f' => '\x0C',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\x0B',
            // Only reached inside a class, where `\b` is backspace.
            'b' => '\x08',
            '0' => '\0',
            'c' => return Err(r"control-character escapes (\cX) are not allowed".into()),
            'x' => self.hex_char(2)?,
            'u' => self.unicode_escape()?,
            _ if c.is_ascii_punctuation() => c,
            _ => return Err(NOT_LINEAR.into()),
        })
    }

    fn hex(&mut self, digits: usize) -> Result<u32, String> {
        let mut value = 0u32;
        for _ in 0..digits {
            value = value.saturating_mul(16).saturating_add(self.next()?.to_digit(16).ok_or(NOT_LINEAR)?);
        }
        Ok(value)
    }

    fn hex_char(&mut self, digits: usize) -> Result<char, String> {
        let value = self.hex(digits)?;
        char::from_u32(value).ok_or_else(|| SURROGATE.into())
    }

    /// `\uXXXX`, a `\uXXXX\uXXXX` surrogate pair (one code point in `u`
    /// mode), or `\u{X…}`.
    fn unicode_escape(&mut self) -> Result<char, String> {
        if self.eat('{') {
            let digits = self.chars.get(self.pos..).unwrap_or(&[]).iter().take_while(|c| **c != '}').count();
            let c = self.hex_char(digits);
            self.pos += 1;
            return c;
        }
        let high = self.hex(4)?;
        let save = self.pos;
        if (0xD800..0xDC00).contains(&high) && self.eat('\\') && self.eat('u') {
            if let Ok(low @ 0xDC00..=0xDFFF) = self.hex(4) {
                return char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)).ok_or(NOT_LINEAR.into());
            }
        }
        self.pos = save;
        char::from_u32(high).ok_or_else(|| SURROGATE.into())
    }

    /// A character class (the `[` is consumed). Negated escapes become nested
    /// classes, which the regex crate unions, so `[\s\S]` means "anything".
    fn class(&mut self) -> Result<(), String> {
        let negated = self.eat('^');
        if self.eat(']') {
            self.out.push_str(if negated { "(?s:.)" } else { NOTHING });
            return Ok(());
        }
        self.out.push_str(if negated { "[^" } else { "[" });
        while !self.eat(']') {
            let Some(first) = self.class_item()? else { continue };
            push_literal(&mut self.out, first);
            if self.peek() == Some('-') && self.peek_at(1) != Some(']') {
                self.pos += 1;
                self.out.push('-');
                let last = self.class_item()?.ok_or(NOT_LINEAR)?;
                push_literal(&mut self.out, last);
            }
        }
        self.out.push(']');
        Ok(())
    }

    /// One class atom: `Some(char)` for a single char (which may start a
    /// range), `None` for a set, which is already emitted.
    fn class_item(&mut self) -> Result<Option<char>, String> {
        let c = self.next()?;
        if c != '\\' {
            return Ok(Some(c));
        }
        if let Some((inner, negated)) = self.peek().and_then(shorthand) {
            self.pos += 1;
            let _ = if negated { write!(self.out, "[^{inner}]") } else { write!(self.out, "{inner}") };
            return Ok(None);
        }
        match self.peek() {
            Some('1'..='9' | 'k') => Err(BACKREF.into()),
            Some('p' | 'P') => self.property().map(|()| None),
            _ => self.character_escape().map(Some),
        }
    }
}

/// JS class escapes `\d \D \w \W \s \S` as (inside of a class, negated).
fn shorthand(c: char) -> Option<(&'static str, bool)> {
    let inner = match c.to_ascii_lowercase() {
        'd' => JS_DIGIT,
        'w' => JS_WORD,
        's' => JS_SPACE,
        _ => return None,
    };
    Some((inner, c.is_ascii_uppercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(source: &str) -> FieldPattern {
        FieldPattern::compile(source).unwrap_or_else(|e| panic!("{source:?} refused: {e}"))
    }

    fn refused(source: &str) -> String {
        FieldPattern::compile(source).expect_err(source)
    }

    /// (pattern, values that match, values that do not), with JS semantics.
    const CASES: &[(&str, &[&str], &[&str])] = &[
        (r"[A-Z]{2}\d{4}", &["AB1234"], &["AB12345", "xAB1234", "ab1234"]),
        (r"\d+", &["0123456789"], &["٣", "１"]),
        (r"\w+", &["aZ0_"], &["é", "a-b"]),
        (r"^\+?[0-9 ]{6,20}$", &["+41 79 123 45 67", "123456"], &["+41-79", "12345"]),
        (r"\w+@\w+\.\w+", &["ab_c@example.org"], &["ab@example", "ab@examplexorg"]),
        (r"\u0041\x42\u{43}", &["ABC"], &["abc"]),
        (r"\u{1F600}\uD83D\uDE00", &["😀😀"], &["😀"]),
        (r"(?<area>\d{3})-\d{4}", &["044-1234"], &["04-1234"]),
        (r"(?<$x>a)|b", &["a", "b"], &["ab"]),
        (r"\d+\/\d+", &["3/4"], &["3\\/4", "3"]),
        ("a.b", &["a-b", "a b"], &["a\nb", "a\rb", "a\u{2028}b", "a\u{2029}b", "ab"]),
        ("a[^]b", &["a\nb", "a-b"], &["ab"]),
        ("a[]b|c", &["c"], &["ab", "a[]b"]),
        (r"[\s\S]+", &["x\n y"], &[""]),
        (r"\s+", &[" \t\n\u{A0}\u{FEFF}\u{3000}"], &["\u{200B}"]),
        (r"\S", &["x"], &["\u{FEFF}", "\u{2028}"]),
        (r"[\d-]+", &["12-3"], &["1a"]),
        (r"[^\W_]+", &["abC9"], &["a_b", "é"]),
        (r"[\[\]^&~-]+|[\b]", &["[]^&~-", "\u{8}"], &["a"]),
        (r"a\b.*|c\Bd", &["a b", "cd"], &["ab", "c d"]),
        (r"\p{Lu}\p{Ll}+", &["Émile"], &["émile"]),
        (r"[(?=]", &["(", "?", "="], &["(?="]),
        (r"\(?=", &["(=", "="], &["(?="]),
        (r"#\.\*\$ &", &["#.*$ &"], &["#"]),
        ("", &[""], &["a"]),
    ];

    #[test]
    fn patterns_match_with_js_semantics() {
        for (source, good, bad) in CASES {
            let p = pat(source);
            // regress (the ECMAScript engine) is the reference for the expectations.
            let js = regress::Regex::with_flags(&format!("^(?:{source})$"), "u").unwrap();
            assert_eq!(p.source(), *source);
            for v in good.iter().chain(bad.iter()) {
                let expected = good.contains(v);
                assert_eq!(js.find(v).is_some(), expected, "regress disagrees on {source:?} / {v:?}");
                assert_eq!(p.is_match(v), expected, "{source:?} on {v:?}");
            }
        }
    }

    #[test]
    fn backtracking_constructs_are_refused() {
        for p in [r"(?=a)a", r"(?!a)b", r"(?<=a)b", r"(?<!a)b"] {
            assert_eq!(refused(p), LOOKAROUND, "{p}");
        }
        for p in [r"(a)\1", r"(?<x>a)\k<x>"] {
            assert_eq!(refused(p), BACKREF, "{p}");
        }
        assert!(refused(r"(?i:a)").contains("modifier"));
        assert!(refused(r"\cJ").contains("control"));
    }

    #[test]
    fn long_and_invalid_patterns_are_refused() {
        assert!(FieldPattern::compile(&"a".repeat(FieldPattern::MAX_LEN)).is_ok());
        assert!(refused(&"a".repeat(FieldPattern::MAX_LEN + 1)).contains("longer than 512"));
        for p in ["(", "[a-", "a{2,1}", r"\q", "a{", "*"] {
            let e = refused(p);
            assert!(e.starts_with("not a valid ECMAScript regular expression: "), "{p}: {e}");
        }
    }

    #[test]
    fn catastrophic_patterns_are_linear_or_refused() {
        let p = pat(r"^(a+)+$");
        let value = format!("{}b", "a".repeat(5_000));
        assert!(!p.is_match(&value));
        assert!(p.is_match(&"a".repeat(5_000)));
        assert!(!p.is_match(&"a".repeat(MAX_VALUE_CHARS + 1)));
        assert!(refused(r"(a{1000}){1000}").contains("too large"));
    }
}
