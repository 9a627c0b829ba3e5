//! Who made a change: an API key, a signed-in user, or Plinth itself (the
//! scheduler, retention, a purge that came due). Stored and answered as the
//! audit trail always wrote it: `api_key:<uuid>`, `user:<identity-provider id>`,
//! `system`. A stored value of another shape fails the row's read.

use std::fmt;
use std::str::FromStr;

use sea_orm::DeriveValueType;
use uuid::Uuid;

#[derive(Clone, Debug, PartialEq, Eq, Hash, DeriveValueType)]
#[sea_orm(value_type = "String")]
pub enum Actor {
    ApiKey(Uuid),
    User(String),
    System,
}

impl Actor {
    /// The identity-provider user, for a user.
    pub fn user_id(&self) -> Option<&str> {
        match self {
            Actor::User(id) => Some(id),
            _ => None,
        }
    }
}

impl fmt::Display for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Actor::ApiKey(id) => write!(f, "api_key:{id}"),
            Actor::User(id) => write!(f, "user:{id}"),
            Actor::System => f.write_str("system"),
        }
    }
}

#[derive(Debug)]
pub struct UnknownActor(String);

impl fmt::Display for UnknownActor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}' is not an actor (api_key:<uuid>, user:<id> or system)", self.0)
    }
}

impl std::error::Error for UnknownActor {}

impl FromStr for Actor {
    type Err = UnknownActor;

    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        let unknown = || UnknownActor(raw.chars().take(80).collect());
        if raw == "system" {
            return Ok(Actor::System);
        }
        if let Some(id) = raw.strip_prefix("api_key:") {
            return id.parse().map(Actor::ApiKey).map_err(|_| unknown());
        }
        match raw.strip_prefix("user:") {
            Some(id) if !id.is_empty() => Ok(Actor::User(id.to_string())),
            _ => Err(unknown()),
        }
    }
}

impl serde::Serialize for Actor {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Actor {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
        raw.parse().map_err(serde::de::Error::custom)
    }
}

impl utoipa::PartialSchema for Actor {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some("Who acted: `api_key:<uuid>`, `user:<identity-provider id>` or `system`."))
            .examples([serde_json::json!("user:user_2abc")])
            .into()
    }
}

impl utoipa::ToSchema for Actor {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_actor_reads_back_as_written() {
        let key = Actor::ApiKey(Uuid::nil());
        for actor in [key, Actor::User("user_2abc:x".into()), Actor::System] {
            assert_eq!(actor.to_string().parse::<Actor>().unwrap(), actor);
        }
        for unknown in ["", "user:", "api_key:nope", "import", "System"] {
            assert!(unknown.parse::<Actor>().is_err(), "{unknown} parsed");
        }
    }
}
