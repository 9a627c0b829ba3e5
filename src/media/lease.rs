//! A media file's edit lease (`crate::leases`): whoever may change the file's
//! record on every one of its sites may take, renew or release it, and the
//! lease shows on each of those sites' lists.

use uuid::Uuid;

use super::records::Media;
use crate::auth::Capability;
use crate::leases::LeasedRow;

impl LeasedRow for Media {
    fn lease_type(&self) -> &'static str {
        "media"
    }

    fn lease_id(&self) -> Uuid {
        self.file.id
    }

    fn lease_sites(&self) -> Vec<Uuid> {
        self.site_ids.clone()
    }
}

crate::row_lease_handlers!(
    Media,
    Capability::CreateContent,
    find = super::access::live,
    who = "Author role or higher on every one of the file's sites.",
    path = "/media/{id}/lease",
    tag = "Media",
    take = take_media_lease("Take or renew the edit lease of a media file"),
    release = release_media_lease("Release the edit lease of a media file")
);
