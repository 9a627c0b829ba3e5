//! A document's edit lease (`crate::leases`): whoever may change it may take,
//! renew or release it.

use plinth_entities::document;

use super::find_document;
use crate::auth::Capability;

crate::row_lease_handlers!(
    document::Model,
    Capability::CreateContent,
    find = find_document,
    who = "Author role or higher on the document's site.",
    path = "/documents/{id}/lease",
    tag = "Documents",
    take = take_document_lease("Take or renew the edit lease of a document"),
    release = release_document_lease("Release the edit lease of a document")
);
