//! A webhook's edit lease (`crate::leases`): whoever may change it (an
//! Admin of its site) may take it.

use plinth_entities::webhook;

use crate::auth::Capability;

crate::row_lease_handlers!(
    webhook::Model,
    Capability::AdministerSite,
    who = "Admin role or higher on the webhook's site.",
    path = "/webhooks/{id}/lease",
    tag = "Webhooks",
    take = take_webhook_lease("Take or renew the edit lease of a webhook"),
    release = release_webhook_lease("Release the edit lease of a webhook")
);
