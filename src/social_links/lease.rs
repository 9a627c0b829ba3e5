//! A social link's edit lease (`crate::leases`).

use plinth_entities::social_link;

use crate::auth::Capability;

crate::row_lease_handlers!(
    social_link::Model,
    Capability::EditAnyContent,
    who = "Editor role or higher on the link's site.",
    path = "/social-links/{id}/lease",
    tag = "Social links",
    take = take_social_link_lease("Take or renew the edit lease of a social link"),
    release = release_social_link_lease("Release the edit lease of a social link")
);
