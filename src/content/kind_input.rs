//! The fields of one kind only, taken from a create or update body for
//! `validate::kind_data`.

use chrono::NaiveDate;
use uuid::Uuid;

use super::model::{
    ConsentGroup, CreateContent, CvEntryType, LegalDocumentType, PageSection, PageType, ProjectLink, UpdateContent,
};

/// The fields of one kind only, as given in a create or update body.
#[derive(Clone, Debug, Default)]
pub struct KindInput {
    pub sections: Option<Vec<PageSection>>,
    pub entry_type: Option<CvEntryType>,
    pub organization: Option<String>,
    pub start_date: Option<NaiveDate>,
    pub end_date: Option<Option<NaiveDate>>,
    pub is_current: Option<bool>,
    pub links: Option<Vec<ProjectLink>>,
    pub client: Option<String>,
    pub media_ids: Option<Vec<Uuid>>,
    pub document_type: Option<LegalDocumentType>,
    pub groups: Option<Vec<ConsentGroup>>,
    pub category: Option<String>,
    pub proficiency: Option<i64>,
    pub allow_comments: Option<bool>,
    pub reading_time_minutes: Option<Option<i64>>,
    pub page_type: Option<PageType>,
    pub template: Option<Option<String>>,
    pub is_in_navigation: Option<bool>,
    pub navigation_order: Option<Option<i32>>,
    pub parent_page_id: Option<Option<Uuid>>,
}

impl From<&CreateContent> for KindInput {
    fn from(b: &CreateContent) -> Self {
        Self {
            sections: b.sections.clone(),
            entry_type: b.entry_type,
            organization: b.organization.clone(),
            start_date: b.start_date,
            end_date: b.end_date.map(Some),
            is_current: b.is_current,
            links: b.links.clone(),
            client: b.client.clone(),
            media_ids: b.media_ids.clone(),
            document_type: b.document_type,
            groups: b.groups.clone(),
            category: b.category.clone(),
            proficiency: b.proficiency,
            allow_comments: b.allow_comments,
            reading_time_minutes: b.reading_time_minutes.map(Some),
            page_type: b.page_type,
            template: b.template.clone().map(Some),
            is_in_navigation: b.is_in_navigation,
            navigation_order: b.navigation_order.map(Some),
            parent_page_id: b.parent_page_id.map(Some),
        }
    }
}

impl From<&UpdateContent> for KindInput {
    fn from(b: &UpdateContent) -> Self {
        Self {
            sections: b.sections.clone(),
            entry_type: b.entry_type,
            organization: b.organization.clone(),
            start_date: b.start_date,
            end_date: b.end_date,
            is_current: b.is_current,
            links: b.links.clone(),
            client: b.client.clone(),
            media_ids: b.media_ids.clone(),
            document_type: b.document_type,
            groups: b.groups.clone(),
            category: b.category.clone(),
            proficiency: b.proficiency,
            allow_comments: b.allow_comments,
            reading_time_minutes: b.reading_time_minutes,
            page_type: b.page_type,
            template: b.template.clone(),
            is_in_navigation: b.is_in_navigation,
            navigation_order: b.navigation_order,
            parent_page_id: b.parent_page_id,
        }
    }
}
