//! A form's edit lease (`crate::leases`): whoever may change the form may
//! take, renew or release it (its author with the own-forms role, anyone
//! with the any-form role), while the site's forms module is on.

use plinth_entities::form;

use crate::auth::Capability;

crate::row_lease_handlers!(
    form::Model,
    Capability::ManageOwnForms,
    find = super::access::editable_form,
    who = "Authors for their own forms; Editor role or higher for any. 404 while the site's forms module is off.",
    path = "/forms/{id}/lease",
    tag = "Forms",
    take = take_form_lease("Take or renew the edit lease of a form"),
    release = release_form_lease("Release the edit lease of a form")
);
