//! Every event's name, declared once: what each subject announces
//! ([`Subject::actions`]). The outbox stores a name's text (`blog.created`),
//! webhooks subscribe to it, and the catalogue they may subscribe to (the
//! spec's 28 names and `form.submission.created`) is derived from here, so a
//! subject that starts announcing something is subscribable by the same edit.

use std::fmt;

/// What an event is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Subject {
    Blog,
    Page,
    Legal,
    Cv,
    Project,
    Document,
    Media,
    Navigation,
    Form,
    /// Edit leases: who edits what.
    Lease,
}

/// What happened to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventAction {
    Created,
    Updated,
    Deleted,
    Published,
    SubmissionCreated,
    Taken,
    Renewed,
    Released,
    TakenOver,
}

impl Subject {
    /// In the order the document lists their names.
    pub const ALL: [Subject; 10] = [
        Subject::Blog,
        Subject::Page,
        Subject::Legal,
        Subject::Cv,
        Subject::Project,
        Subject::Document,
        Subject::Media,
        Subject::Navigation,
        Subject::Form,
        Subject::Lease,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Subject::Blog => "blog",
            Subject::Page => "page",
            Subject::Legal => "legal",
            Subject::Cv => "cv",
            Subject::Project => "project",
            Subject::Document => "document",
            Subject::Media => "media",
            Subject::Navigation => "navigation",
            Subject::Form => "form",
            Subject::Lease => "lease",
        }
    }

    /// What it announces: the one list of which names exist.
    pub const fn actions(self) -> &'static [EventAction] {
        use EventAction::*;
        match self {
            Subject::Blog | Subject::Page | Subject::Legal | Subject::Cv | Subject::Project => {
                &[Created, Updated, Deleted, Published]
            }
            Subject::Document | Subject::Navigation => &[Created, Updated, Deleted],
            Subject::Media => &[Created, Deleted],
            Subject::Form => &[SubmissionCreated],
            Subject::Lease => &[Taken, Renewed, Released, TakenOver],
        }
    }

    /// Whether webhooks are sent its events. Edit leases are presence, on
    /// the site's live stream only: they are no change an integration acts on.
    pub const fn delivered(self) -> bool {
        !matches!(self, Subject::Lease)
    }
}

impl EventAction {
    pub const fn name(self) -> &'static str {
        match self {
            EventAction::Created => "created",
            EventAction::Updated => "updated",
            EventAction::Deleted => "deleted",
            EventAction::Published => "published",
            EventAction::SubmissionCreated => "submission.created",
            EventAction::Taken => "taken",
            EventAction::Renewed => "renewed",
            EventAction::Released => "released",
            EventAction::TakenOver => "taken_over",
        }
    }
}

/// An event's name: `subject.action`, serialized as that text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EventName {
    pub subject: Subject,
    pub action: EventAction,
}

impl EventName {
    /// The name of `action` of `subject`, which must be one it announces
    /// ([`Subject::actions`]); the tests of each family's events check it.
    pub fn new(subject: Subject, action: EventAction) -> Self {
        debug_assert!(subject.actions().contains(&action), "{subject:?} announces no {action:?}");
        Self { subject, action }
    }

    /// Every name, in the document's order.
    pub fn all() -> impl Iterator<Item = EventName> {
        Subject::ALL
            .into_iter()
            .flat_map(|subject| subject.actions().iter().map(move |&action| Self { subject, action }))
    }

    /// The names webhooks may subscribe to and are sent.
    pub fn delivered() -> impl Iterator<Item = EventName> {
        Self::all().filter(|name| name.subject.delivered())
    }

    /// Whether `text` spells this name (without building it).
    pub fn is(self, text: &str) -> bool {
        text.strip_prefix(self.subject.name()).and_then(|rest| rest.strip_prefix('.')) == Some(self.action.name())
    }
}

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.subject.name(), self.action.name())
    }
}

impl std::str::FromStr for EventName {
    type Err = UnknownEvent;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::all().find(|name| name.is(text)).ok_or(UnknownEvent)
    }
}

/// A text that names no event.
#[derive(Debug, PartialEq)]
pub struct UnknownEvent;

/// A name compared with its text, as tests and logs spell it.
impl PartialEq<&str> for EventName {
    fn eq(&self, text: &&str) -> bool {
        self.is(text)
    }
}

impl serde::Serialize for EventName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_is_the_specs_28_names_and_form_submissions_in_the_documents_order() {
        let names: Vec<String> = EventName::delivered().map(|name| name.to_string()).collect();
        assert_eq!(names.len(), 29);
        assert_eq!(&names[..5], ["blog.created", "blog.updated", "blog.deleted", "blog.published", "page.created"]);
        assert_eq!(
            names[20..],
            [
                "document.created",
                "document.updated",
                "document.deleted",
                "media.created",
                "media.deleted",
                "navigation.created",
                "navigation.updated",
                "navigation.deleted",
                "form.submission.created",
            ]
        );
    }

    #[test]
    fn every_name_reads_back_from_its_text_and_nothing_else_does() {
        for name in EventName::all() {
            assert_eq!(name.to_string().parse(), Ok(name));
            assert!(name.is(&name.to_string()));
        }
        for text in ["blog", "blog.", "blog.created.x", "media.updated", "lease.taken_over ", ""] {
            assert_eq!(text.parse::<EventName>(), Err(UnknownEvent), "{text:?}");
        }
        assert!(EventName::all().any(|name| name == "lease.taken_over"));
        assert!(!EventName::delivered().any(|name| name.subject == Subject::Lease));
    }
}
