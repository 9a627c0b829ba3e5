//! A redirect's edit lease (`crate::leases`).

use plinth_entities::redirect;

use crate::auth::Capability;

crate::row_lease_handlers!(
    redirect::Model,
    Capability::EditAnyContent,
    who = "Editor role or higher on the redirect's site.",
    path = "/redirects/{id}/lease",
    tag = "Redirects",
    take = take_redirect_lease("Take or renew the edit lease of a redirect"),
    release = release_redirect_lease("Release the edit lease of a redirect")
);
