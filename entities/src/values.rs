//! Values stored in enum-like columns, typed: a column holds one of its enum's
//! values or reading the row fails. Each is stored as the API spells it
//! (`Published`, `in_review`, `email`).

use sea_orm::entity::prelude::*;
use serde::Serialize;

/// A name compared the way clients spell it: letter case, `_`, `-` and spaces
/// do not count (`InReview`, `in_review` and `inreview` are one name).
pub fn wire_key(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, '_' | '-' | ' ')).flat_map(char::to_lowercase).collect()
}

/// Deserializes a unit enum from any spelling of its names (see [`wire_key`]);
/// each variant lists the names it answers to, its own first. The spec and the
/// service it was written from spell values differently (`Approve` and
/// `approve`, `RequestChanges` and `request_changes`): both work.
#[macro_export]
macro_rules! lenient_enum {
    ($ty:ty { $($variant:expr => [$($name:literal),+ $(,)?]),+ $(,)? }) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let raw = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                let key = $crate::values::wire_key(&raw);
                $(
                    if [$($name),+].iter().any(|n| $crate::values::wire_key(n) == key) {
                        return Ok($variant);
                    }
                )+
                let expected = [$([$($name),+][0]),+].join(", ");
                Err(serde::de::Error::custom(format!("unknown value '{raw}': expected one of {expected}")))
            }
        }
    };
}

/// Serde defaults of columns added after archives were first taken: an
/// archive without them reads as these.
/// The deepest a menu may be; what menus made before depths were kept get.
pub const MENU_DEPTH_MAX: i32 = 10;

pub fn menu_depth_max() -> i32 {
    MENU_DEPTH_MAX
}

pub fn yes() -> bool {
    true
}

pub fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

/// The editorial status of a content item, shared by every kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, utoipa::ToSchema)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
pub enum ContentStatus {
    #[sea_orm(string_value = "Draft")]
    Draft,
    #[sea_orm(string_value = "InReview")]
    InReview,
    #[sea_orm(string_value = "Published")]
    Published,
    #[sea_orm(string_value = "Scheduled")]
    Scheduled,
    #[sea_orm(string_value = "Archived")]
    Archived,
}

crate::lenient_enum!(ContentStatus {
    ContentStatus::Draft => ["Draft"],
    ContentStatus::InReview => ["InReview"],
    ContentStatus::Published => ["Published"],
    ContentStatus::Scheduled => ["Scheduled"],
    ContentStatus::Archived => ["Archived"],
});

/// Where a translation stands, as the origin service's admin tracks it; a new
/// localization (and one stored before this was kept) is `Pending`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, utoipa::ToSchema)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
pub enum TranslationStatus {
    #[default]
    #[sea_orm(string_value = "Pending")]
    Pending,
    #[sea_orm(string_value = "InProgress")]
    InProgress,
    #[sea_orm(string_value = "Review")]
    Review,
    #[sea_orm(string_value = "Approved")]
    Approved,
    #[sea_orm(string_value = "Outdated")]
    Outdated,
}

crate::lenient_enum!(TranslationStatus {
    TranslationStatus::Pending => ["Pending"],
    TranslationStatus::InProgress => ["InProgress"],
    TranslationStatus::Review => ["Review"],
    TranslationStatus::Approved => ["Approved"],
    TranslationStatus::Outdated => ["Outdated"],
});

impl ContentStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ContentStatus::Draft => "Draft",
            ContentStatus::InReview => "InReview",
            ContentStatus::Published => "Published",
            ContentStatus::Scheduled => "Scheduled",
            ContentStatus::Archived => "Archived",
        }
    }

    /// Publishing moves: they need an editor (or review, under the workflow).
    pub fn is_publishing(self) -> bool {
        matches!(self, ContentStatus::Published | ContentStatus::Scheduled)
    }

    /// The moves the lifecycle allows. Staying put is always allowed. Archived
    /// content returns through Draft; published content is withdrawn to Draft
    /// or Archived, not sent back to review.
    pub fn can_move_to(self, to: ContentStatus) -> bool {
        use ContentStatus::*;
        self == to
            || match self {
                Draft => true,
                InReview => matches!(to, Draft | Published | Scheduled | Archived),
                Published => matches!(to, Draft | Archived),
                Scheduled => matches!(to, Draft | Published | Archived),
                Archived => to == Draft,
            }
    }
}

/// Where a form submission stands in its review.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, EnumIter, DeriveActiveEnum, Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
pub enum SubmissionStatus {
    #[sea_orm(string_value = "new")]
    New,
    #[sea_orm(string_value = "in_review")]
    InReview,
    #[sea_orm(string_value = "resolved")]
    Resolved,
    #[sea_orm(string_value = "archived")]
    Archived,
}

impl SubmissionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SubmissionStatus::New => "new",
            SubmissionStatus::InReview => "in_review",
            SubmissionStatus::Resolved => "resolved",
            SubmissionStatus::Archived => "archived",
        }
    }

    /// The review state machine: new → in_review | resolved | archived;
    /// in_review → resolved | archived; resolved → in_review (reopen) |
    /// archived; archived → in_review (restore). Nothing returns to `new`
    /// (it means "nobody looked yet") and nothing moves to itself.
    pub fn may_move_to(self, to: SubmissionStatus) -> bool {
        use SubmissionStatus::*;
        matches!(
            (self, to),
            (New, InReview | Resolved | Archived)
                | (InReview, Resolved | Archived)
                | (Resolved, InReview | Archived)
                | (Archived, InReview)
        )
    }
}

/// What a form field takes, and how its value is checked.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, EnumIter, DeriveActiveEnum, Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
pub enum FieldType {
    #[sea_orm(string_value = "text")]
    Text,
    #[sea_orm(string_value = "textarea")]
    Textarea,
    #[sea_orm(string_value = "email")]
    Email,
    #[sea_orm(string_value = "number")]
    Number,
    #[sea_orm(string_value = "date")]
    Date,
    #[sea_orm(string_value = "select")]
    Select,
    #[sea_orm(string_value = "radio")]
    Radio,
    #[sea_orm(string_value = "checkbox")]
    Checkbox,
}

impl FieldType {
    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::Text => "text",
            FieldType::Textarea => "textarea",
            FieldType::Email => "email",
            FieldType::Number => "number",
            FieldType::Date => "date",
            FieldType::Select => "select",
            FieldType::Radio => "radio",
            FieldType::Checkbox => "checkbox",
        }
    }

    /// Types whose value must be one of the field's options.
    pub fn has_options(self) -> bool {
        matches!(self, FieldType::Select | FieldType::Radio)
    }

    /// Types whose value is text (length and pattern rules apply).
    pub fn is_text(self) -> bool {
        matches!(self, FieldType::Text | FieldType::Textarea | FieldType::Email)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sea_orm::{ActiveEnum, Iterable};

    #[test]
    fn every_value_is_stored_as_its_name_and_read_back() {
        for status in ContentStatus::iter() {
            assert_eq!(status.to_value(), status.as_str());
            assert_eq!(ContentStatus::try_from_value(&status.as_str().to_string()).ok(), Some(status));
        }
        for status in SubmissionStatus::iter() {
            assert_eq!(status.to_value(), status.as_str());
            assert_eq!(SubmissionStatus::try_from_value(&status.as_str().to_string()).ok(), Some(status));
        }
        for field_type in FieldType::iter() {
            assert_eq!(field_type.to_value(), field_type.as_str());
            assert_eq!(FieldType::try_from_value(&field_type.as_str().to_string()).ok(), Some(field_type));
        }
    }

    /// A row holding a value no variant stores fails to read, instead of
    /// being taken for a draft or a new submission.
    #[test]
    fn an_unknown_stored_value_is_an_error_not_a_default() {
        assert!(ContentStatus::try_from_value(&"Deleted".to_string()).is_err());
        assert!(ContentStatus::try_from_value(&"published".to_string()).is_err());
        assert!(SubmissionStatus::try_from_value(&"New".to_string()).is_err());
        assert!(FieldType::try_from_value(&"file".to_string()).is_err());
    }

    #[test]
    fn clients_may_spell_a_content_status_their_way() {
        let read = |raw: &str| serde_json::from_value::<ContentStatus>(serde_json::json!(raw)).ok();
        assert_eq!(read("in_review"), Some(ContentStatus::InReview));
        assert_eq!(read("PUBLISHED"), Some(ContentStatus::Published));
        assert_eq!(read("gone"), None);
    }
}

/// A member's role on a site, lowest first: each role has every right of the
/// roles below it (what each may do is the permission table's, in the
/// service). Stored lowercase; read in any letter case, and `viewer` for read
/// (the name the service the spec was written from uses).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, EnumIter, DeriveActiveEnum, Serialize, utoipa::ToSchema,
)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
#[serde(rename_all = "lowercase")]
pub enum Role {
    #[sea_orm(string_value = "read")]
    Read,
    #[sea_orm(string_value = "author")]
    Author,
    #[sea_orm(string_value = "reviewer")]
    Reviewer,
    #[sea_orm(string_value = "editor")]
    Editor,
    #[sea_orm(string_value = "admin")]
    Admin,
    #[sea_orm(string_value = "owner")]
    Owner,
}

impl Role {
    pub const ALL: [Role; 6] = [Role::Read, Role::Author, Role::Reviewer, Role::Editor, Role::Admin, Role::Owner];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Read => "read",
            Role::Author => "author",
            Role::Reviewer => "reviewer",
            Role::Editor => "editor",
            Role::Admin => "admin",
            Role::Owner => "owner",
        }
    }

    /// Accepts any letter case (`Editor`, `editor`), and `viewer` for read.
    pub fn parse(s: &str) -> Option<Role> {
        if s.eq_ignore_ascii_case("viewer") {
            return Some(Role::Read);
        }
        Role::ALL.into_iter().find(|r| r.as_str().eq_ignore_ascii_case(s))
    }
}

impl<'de> serde::Deserialize<'de> for Role {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
        Role::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown role '{s}': expected read, author, reviewer, editor, admin or owner"
            ))
        })
    }
}

/// Where a webhook delivery stands: waiting for its first attempt, delivered,
/// failed and due again on the retry schedule, or dead (the schedule ran out).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, utoipa::ToSchema)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
#[serde(rename_all = "lowercase")]
pub enum DeliveryStatus {
    #[sea_orm(string_value = "pending")]
    Pending,
    #[sea_orm(string_value = "success")]
    Success,
    #[sea_orm(string_value = "failed")]
    Failed,
    #[sea_orm(string_value = "dead")]
    Dead,
}

impl DeliveryStatus {
    /// The stored and answered name (a metric's label too).
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Success => "success",
            DeliveryStatus::Failed => "failed",
            DeliveryStatus::Dead => "dead",
        }
    }

    /// Still to be attempted (by the retry worker once due).
    pub const OPEN: [DeliveryStatus; 2] = [DeliveryStatus::Pending, DeliveryStatus::Failed];
}

/// Where a site export stands: queued, being built, ready to download (until
/// it expires) or failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, utoipa::ToSchema)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
#[serde(rename_all = "lowercase")]
pub enum ExportStatus {
    #[sea_orm(string_value = "queued")]
    Queued,
    #[sea_orm(string_value = "running")]
    Running,
    #[sea_orm(string_value = "ready")]
    Ready,
    #[sea_orm(string_value = "failed")]
    Failed,
}

/// A user's moderation. Users without a row are active; `deleted` is only
/// answered (the row goes with the user).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
#[serde(rename_all = "lowercase")]
pub enum ModerationStatus {
    #[sea_orm(string_value = "active")]
    Active,
    #[sea_orm(string_value = "suspended")]
    Suspended,
    #[sea_orm(string_value = "banned")]
    Banned,
    #[sea_orm(string_value = "deleted")]
    Deleted,
}

/// An API key's permission level, lowest first. What each may do is the
/// permission table's (`permissions::KeyGrants`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, EnumIter, DeriveActiveEnum, Serialize, utoipa::ToSchema,
)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
pub enum KeyPermission {
    #[sea_orm(string_value = "Read")]
    Read,
    #[sea_orm(string_value = "Write")]
    Write,
    #[sea_orm(string_value = "Admin")]
    Admin,
    /// Operator key: never site-scoped, acts as a system admin.
    #[sea_orm(string_value = "Master")]
    Master,
}

impl KeyPermission {
    pub const ALL: [KeyPermission; 4] =
        [KeyPermission::Read, KeyPermission::Write, KeyPermission::Admin, KeyPermission::Master];

    pub fn as_str(self) -> &'static str {
        match self {
            KeyPermission::Read => "Read",
            KeyPermission::Write => "Write",
            KeyPermission::Admin => "Admin",
            KeyPermission::Master => "Master",
        }
    }

    /// Accepts any letter case (`write`, `Write`).
    pub fn parse(s: &str) -> Option<KeyPermission> {
        KeyPermission::ALL.into_iter().find(|p| p.as_str().eq_ignore_ascii_case(s))
    }
}
