//! ALTCHA proof-of-work (<https://altcha.org>, the widget's v1 format) for
//! public form submissions.
//!
//! The server issues a [`Challenge`]: a `salt` (random hex followed by
//! `?expires=<unix seconds>`), `challenge = hex(sha256(salt ++ number))` for a
//! secret random `number` in `0..=maxnumber`, and
//! `signature = hex(hmac_sha256(key, challenge))`. The widget brute-forces
//! `number` and submits base64 of the JSON
//! `{"algorithm","challenge","number","salt","signature","took"}`, which
//! [`verify`] checks. The expiry travels inside the salt, so it is covered by
//! the hash and, through it, by the signature: no server state is needed until
//! a solution is spent, and single use is the caller's job (it stores
//! [`Solution::replay_key`] until [`Solution::expires_at`]).
//!
//! Written here rather than taken from `altcha-lib-rs`: that crate pulls second
//! copies of `sha2`/`hmac`/`rand` and reads the system clock, while our clock
//! must be injectable (`now` is always passed in).

use base64::engine::{general_purpose::GeneralPurpose, general_purpose::GeneralPurposeConfig, DecodePaddingMode};
use base64::{alphabet, engine::general_purpose::STANDARD, Engine as _};
use chrono::{DateTime, Duration, Utc};
use hmac::{Hmac, Mac};
use rand::Rng as _;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub const ALGORITHM: &str = "SHA-256";

/// Real tokens are ~300 bytes; the cap bounds the work an anonymous caller can
/// make us do before anything is checked.
const MAX_TOKEN_BYTES: usize = 4 * 1024;

/// Widgets and proxies differ on padding and alphabet; being lenient costs
/// nothing because the signature, not the encoding, is what is trusted.
const LENIENT: GeneralPurposeConfig =
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
const STANDARD_LENIENT: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, LENIENT);
const URL_SAFE_LENIENT: GeneralPurpose = GeneralPurpose::new(&alphabet::URL_SAFE, LENIENT);

/// A challenge as the widget expects it.
#[derive(Serialize, Deserialize, Debug, Clone, utoipa::ToSchema)]
pub struct Challenge {
    /// Always `SHA-256`.
    pub algorithm: String,
    /// `hex(sha256(salt ++ number))`.
    pub challenge: String,
    /// Upper bound (inclusive) of the secret number; sets the difficulty.
    pub maxnumber: u64,
    /// Random hex followed by `?expires=<unix seconds>`.
    pub salt: String,
    /// `hex(hmac_sha256(key, challenge))`.
    pub signature: String,
}

impl Challenge {
    /// Issues a challenge expiring at `now + ttl` (whole seconds).
    pub fn issue(key: &[u8], now: DateTime<Utc>, ttl: Duration, maxnumber: u64) -> Challenge {
        // An absurd ttl must not panic; an already-expired challenge fails closed.
        let expires = now.checked_add_signed(ttl).unwrap_or(now).timestamp();
        let random: [u8; 12] = rand::random();
        let salt = format!("{}?expires={expires}", hex::encode(random));
        let number = rand::rng().random_range(0..=maxnumber);
        Challenge::build(key, salt, number, maxnumber)
    }

    fn build(key: &[u8], salt: String, number: u64, maxnumber: u64) -> Challenge {
        let challenge = hex::encode(hash(&salt, number));
        Challenge {
            algorithm: ALGORITHM.to_owned(),
            signature: hex::encode(mac(key, &challenge).finalize().into_bytes()),
            challenge,
            maxnumber,
            salt,
        }
    }
}

/// A verified, not yet spent solution.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// `hex(sha256(lowercase signature))`: fixed-size, and identical for every
    /// encoding of the same solution, so a spent-token table can key on it.
    pub replay_key: String,
    pub expires_at: DateTime<Utc>,
}

/// Why a token was refused. Messages never echo the token.
#[derive(Debug, PartialEq, Eq, Clone, Copy, thiserror::Error)]
pub enum Refusal {
    #[error("malformed proof-of-work token")]
    Malformed,
    #[error("unsupported proof-of-work algorithm")]
    UnsupportedAlgorithm,
    #[error("proof-of-work challenge has no expiry")]
    NoExpiry,
    #[error("proof-of-work challenge has expired")]
    Expired,
    #[error("wrong proof-of-work solution")]
    WrongSolution,
    #[error("invalid proof-of-work signature")]
    BadSignature,
}

/// The widget's payload; serde ignores the extra keys widgets add (`took`, …).
#[derive(Deserialize)]
struct Payload {
    algorithm: String,
    challenge: String,
    number: u64,
    salt: String,
    signature: String,
}

/// Checks a widget token; see the module doc for the format.
pub fn verify(token: &str, key: &[u8], now: DateTime<Utc>) -> Result<Solution, Refusal> {
    let token = token.trim();
    if token.len() > MAX_TOKEN_BYTES {
        return Err(Refusal::Malformed);
    }
    let engine = if token.contains(['-', '_']) { &URL_SAFE_LENIENT } else { &STANDARD_LENIENT };
    let json = engine.decode(token).map_err(|_| Refusal::Malformed)?;
    let payload: Payload = serde_json::from_slice(&json).map_err(|_| Refusal::Malformed)?;
    if !payload.algorithm.eq_ignore_ascii_case(ALGORITHM) {
        return Err(Refusal::UnsupportedAlgorithm);
    }
    let expires_at = salt_expiry(&payload.salt)?;
    if expires_at <= now {
        return Err(Refusal::Expired);
    }
    // The challenge is public, so a plain comparison leaks nothing.
    let challenge = payload.challenge.to_ascii_lowercase();
    if hex::encode(hash(&payload.salt, payload.number)) != challenge {
        return Err(Refusal::WrongSolution);
    }
    let signature = hex::decode(&payload.signature).map_err(|_| Refusal::BadSignature)?;
    mac(key, &challenge).verify_slice(&signature).map_err(|_| Refusal::BadSignature)?;
    let spent = Sha256::digest(payload.signature.to_ascii_lowercase().as_bytes());
    Ok(Solution { replay_key: hex::encode(spent), expires_at })
}

/// Brute-force solver producing a real widget token (with a `took` field).
/// Public, not `cfg(test)`, because tests and benchmarks elsewhere use it to
/// submit forms; production code has no reason to call it. Returns `None` if
/// no number in `0..=maxnumber` solves the challenge.
pub fn solve(challenge: &Challenge) -> Option<String> {
    let started = std::time::Instant::now();
    let target = hex::decode(&challenge.challenge).ok()?;
    let number = (0..=challenge.maxnumber).find(|n| hash(&challenge.salt, *n)[..] == target[..])?;
    let token = serde_json::json!({
        "algorithm": challenge.algorithm,
        "challenge": challenge.challenge,
        "number": number,
        "salt": challenge.salt,
        "signature": challenge.signature,
        "took": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    });
    Some(STANDARD.encode(token.to_string()))
}

/// Reads `expires` from the salt's `?a=b&c=d` parameters, as ALTCHA does.
fn salt_expiry(salt: &str) -> Result<DateTime<Utc>, Refusal> {
    let (_, query) = salt.split_once('?').ok_or(Refusal::NoExpiry)?;
    let mut values = query.split('&').filter_map(|pair| pair.strip_prefix("expires="));
    let value = values.next().ok_or(Refusal::NoExpiry)?;
    // Two expiries would leave it to us to guess which one the issuer meant.
    if values.next().is_some() {
        return Err(Refusal::Malformed);
    }
    let secs: i64 = value.parse().map_err(|_| Refusal::Malformed)?;
    DateTime::from_timestamp(secs, 0).ok_or(Refusal::Malformed)
}

/// Salt and number are concatenated with nothing between, as the widget does.
fn hash(salt: &str, number: u64) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(salt.as_bytes());
    hasher.update(number.to_string().as_bytes());
    hasher.finalize().into()
}

/// Signing the challenge covers the salt (and its expiry) through the hash.
fn mac(key: &[u8], challenge: &str) -> Hmac<Sha256> {
    // HMAC hashes or pads keys of any length, so the error case cannot happen.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else { unreachable!("HMAC accepts any key length") };
    mac.update(challenge.as_bytes());
    mac
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"test key";
    const TTL: Duration = Duration::minutes(5);

    fn now() -> DateTime<Utc> {
        DateTime::from_timestamp(1_700_000_000, 123_000_000).unwrap()
    }

    fn decode(token: &str) -> serde_json::Value {
        serde_json::from_slice(&STANDARD.decode(token).unwrap()).unwrap()
    }

    /// Decodes a token, lets `edit` change the JSON, and re-encodes it.
    fn tamper(token: &str, edit: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut json = decode(token);
        edit(&mut json);
        STANDARD.encode(json.to_string())
    }

    #[test]
    fn issued_challenge_solves_and_verifies() {
        let challenge = Challenge::issue(KEY, now(), TTL, 1_000);
        assert_eq!(challenge.algorithm, "SHA-256");
        assert!(challenge.salt.ends_with("?expires=1700000300"));
        assert_eq!(challenge.salt.split_once('?').unwrap().0.len(), 24);
        let token = solve(&challenge).unwrap();
        let solution = verify(&token, KEY, now()).unwrap();
        assert_eq!(solution.replay_key.len(), 64);
        assert!(solution.replay_key.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(solution.expires_at, DateTime::from_timestamp(1_700_000_300, 0).unwrap());
        assert_eq!(verify(&token, KEY, now()).unwrap().replay_key, solution.replay_key);
    }

    #[test]
    fn lenient_encodings_and_case_are_accepted() {
        let token = solve(&Challenge::issue(KEY, now(), TTL, 1_000)).unwrap();
        let expected = verify(&token, KEY, now()).unwrap();
        let url = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(STANDARD.decode(&token).unwrap());
        assert_eq!(verify(&url, KEY, now()), Ok(expected.clone()));
        let upper = tamper(&token, |j| {
            for field in ["algorithm", "challenge", "signature"] {
                j[field] = j[field].as_str().unwrap().to_uppercase().into();
            }
            j["extra"] = "ignored".into();
        });
        assert_eq!(verify(&upper, KEY, now()), Ok(expected));
    }

    #[test]
    fn expired_or_wrong_answers_are_refused() {
        let token = solve(&Challenge::issue(KEY, now(), TTL, 1_000)).unwrap();
        assert_eq!(verify(&token, KEY, now() + TTL + Duration::seconds(1)), Err(Refusal::Expired));
        let wrong = tamper(&token, |j| j["number"] = (j["number"].as_u64().unwrap() + 1).into());
        assert_eq!(verify(&wrong, KEY, now()), Err(Refusal::WrongSolution));
        assert_eq!(verify(&token, b"other key", now()), Err(Refusal::BadSignature));
        let salt = tamper(&token, |j| {
            let salt = j["salt"].as_str().unwrap().replace("1700000300", "1800000000");
            j["salt"] = salt.into();
        });
        assert!(matches!(verify(&salt, KEY, now()), Err(Refusal::WrongSolution | Refusal::BadSignature)));
        let unsigned = tamper(&token, |j| j["signature"] = "not hex".into());
        assert_eq!(verify(&unsigned, KEY, now()), Err(Refusal::BadSignature));
    }

    #[test]
    fn malformed_tokens_are_refused() {
        assert_eq!(verify("%%% not base64", KEY, now()), Err(Refusal::Malformed));
        assert_eq!(verify(&STANDARD.encode("not json"), KEY, now()), Err(Refusal::Malformed));
        let huge = STANDARD.encode("x".repeat(MAX_TOKEN_BYTES));
        assert_eq!(verify(&huge, KEY, now()), Err(Refusal::Malformed));
        let sha512 =
            tamper(&solve(&Challenge::issue(KEY, now(), TTL, 1_000)).unwrap(), |j| j["algorithm"] = "SHA-512".into());
        assert_eq!(verify(&sha512, KEY, now()), Err(Refusal::UnsupportedAlgorithm));
    }

    #[test]
    fn salt_must_carry_a_numeric_expiry() {
        for (salt, refusal) in [
            ("abc", Refusal::NoExpiry),
            ("abc?foo=1", Refusal::NoExpiry),
            ("abc?expires=soon", Refusal::Malformed),
            ("abc?expires=4102444800&expires=4102444801", Refusal::Malformed),
        ] {
            let token = solve(&Challenge::build(KEY, salt.into(), 3, 10)).unwrap();
            assert_eq!(verify(&token, KEY, now()), Err(refusal), "{salt}");
        }
        let token = solve(&Challenge::build(KEY, "abc?x=1&expires=4102444800&".into(), 3, 10));
        assert!(verify(&token.unwrap(), KEY, now()).is_ok());
    }

    #[test]
    fn known_answer_concatenates_salt_and_decimal_number() {
        // printf '%s' 'abc?expires=41024448007' | sha256sum
        let expected = "f3ef6a6b65b768d5613876883fa54265d757dfd6a6df34a9b4287ddca10eb0ef";
        let challenge = Challenge::build(KEY, "abc?expires=4102444800".into(), 7, 10);
        assert_eq!(challenge.challenge, expected);
        assert_eq!(challenge.signature, hex::encode(mac(KEY, expected).finalize().into_bytes()));
        let json = decode(&solve(&challenge).unwrap());
        assert_eq!(json["number"], 7);
        assert!(json["took"].is_u64());
        // Unsolvable within maxnumber; maxnumber 0 is still solvable.
        assert_eq!(solve(&Challenge::build(KEY, "abc?expires=4102444800".into(), 7, 6)), None);
        let zero = Challenge::issue(KEY, now(), TTL, 0);
        assert!(verify(&solve(&zero).unwrap(), KEY, now()).is_ok());
    }
}
