"""Which fixture of scripts/fuzz_fixtures.py goes into which path parameter.

Random ids in paths only ever reach the "no such thing" branch; the fixtures'
ids reach the handlers behind the lookups. Used by the fuzzer's hooks
(scripts/fuzz_hooks.py) and by the client judge's crawl
(scripts/client_judge/crawl.py), so both aim at the same items.
"""

import re

NAMED_PARAMETERS = {"site_id": "site", "blog_id": "blogs", "form_id": "forms", "doc_id": "documents"}
# A user the stand-in identity provider (scripts/fuzz_idp.py) knows.
IDP_USER = "user_fuzz_1"
IDENTIFIER = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
KIND_AND_ID = re.compile(r"^/api/v1/([a-z-]+)/\{id\}")
LOCALIZATION = re.compile(r"^/api/v1/([a-z-]+)/localizations/\{loc_id\}$")


def fill(path, method, parameters, fixtures):
    """`parameters` (the path's, by name) with the fixtures' ids put in where
    one fits; the others keep their value. `DELETE /<kind>/{id}` keeps its
    id, so the fixtures last a whole run."""
    for name, kind in NAMED_PARAMETERS.items():
        if name in parameters and kind in fixtures:
            parameters[name] = fixtures[kind]
    match = KIND_AND_ID.match(path)
    if match and "id" in parameters:
        kind = "site" if match.group(1) == "sites" else match.group(1)
        removes_the_fixture = method.upper() == "DELETE" and path == match.group(0)
        if kind in fixtures and not removes_the_fixture:
            parameters["id"] = fixtures[kind]
    # `/<kind>/localizations/{loc_id}`: the fixture item's localization.
    localized = LOCALIZATION.match(path)
    if localized and "loc_id" in parameters and method.upper() != "DELETE":
        parameters["loc_id"] = fixtures.get(f"{localized.group(1)}-localization", parameters["loc_id"])
    # The fixture site's and form's slug (both "fuzz").
    if "slug" in parameters and path.startswith(("/api/v1/sites/{slug}", "/api/v1/public/forms/{slug}")):
        parameters["slug"] = "fuzz"
    # Well-formed user ids become a known user; malformed ones stay, for the
    # IDP_INVALID_IDENTIFIER branch.
    user_id = parameters.get("id")
    if path.startswith("/api/v1/idp/users/") and isinstance(user_id, str) and IDENTIFIER.match(user_id):
        parameters["id"] = IDP_USER
    return parameters
