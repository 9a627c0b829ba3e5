"""Schemathesis hooks for scripts/fuzz (loaded through SCHEMATHESIS_HOOKS).

- `problem_json_has_code`: a custom check. Every failure Plinth sends is RFC 7807
  problem+json with a stable machine `code` (the error catalog, `GET
  /api/v1/error-codes`), and its `status` member is the HTTP status it came with.
  Clients branch on `code`; a problem without one is a defect wherever it comes
  from (a handler, an extractor, actix itself).
- `map_path_parameters`: random UUIDs in paths only ever reach the "no such
  thing" branch. scripts/fuzz_fixtures.py creates a site (every module on) and
  one item of each kind; their ids (`PLINTH_FUZZ_FIXTURES`, JSON) go into the
  generated paths, so queries and bodies reach the handlers behind the lookups.
  `DELETE /<kind>/{id}` itself keeps its random id, so the fixtures last the
  whole run; every other operation may change them as it likes.
"""

import json
import os
import re

import schemathesis

FIXTURES = json.loads(os.environ.get("PLINTH_FUZZ_FIXTURES") or "{}")
# Path parameters that name an item of a fixture kind wherever they appear.
NAMED_PARAMETERS = {"site_id": "site", "blog_id": "blogs", "form_id": "forms", "doc_id": "documents"}
# A user the stand-in identity provider (scripts/fuzz_idp.py) knows.
IDP_USER = "user_fuzz_1"
IDENTIFIER = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
KIND_AND_ID = re.compile(r"^/api/v1/([a-z-]+)/\{id\}")
LOCALIZATION = re.compile(r"^/api/v1/([a-z-]+)/localizations/\{loc_id\}$")
SITE_SETTINGS = "/api/v1/sites/{site_id}/settings"


@schemathesis.hook
def map_path_parameters(ctx, path_parameters):
    operation = ctx.operation
    if not path_parameters or operation is None:
        return path_parameters
    for name, kind in NAMED_PARAMETERS.items():
        if name in path_parameters and kind in FIXTURES:
            path_parameters[name] = FIXTURES[kind]
    match = KIND_AND_ID.match(operation.path)
    if match and "id" in path_parameters:
        kind = "site" if match.group(1) == "sites" else match.group(1)
        removes_the_fixture = operation.method.upper() == "DELETE" and operation.path == match.group(0)
        if kind in FIXTURES and not removes_the_fixture:
            path_parameters["id"] = FIXTURES[kind]
    # `/<kind>/localizations/{loc_id}`: the fixture item's localization.
    localized = LOCALIZATION.match(operation.path)
    if localized and "loc_id" in path_parameters and operation.method.upper() != "DELETE":
        path_parameters["loc_id"] = FIXTURES.get(f"{localized.group(1)}-localization", path_parameters["loc_id"])
    # The fixture site's and form's slug (both "fuzz").
    if "slug" in path_parameters and operation.path.startswith(("/api/v1/sites/{slug}", "/api/v1/public/forms/{slug}")):
        path_parameters["slug"] = "fuzz"
    # Well-formed user ids become a known user; malformed ones stay, for the
    # IDP_INVALID_IDENTIFIER branch.
    user_id = path_parameters.get("id")
    if operation.path.startswith("/api/v1/idp/users/") and isinstance(user_id, str) and IDENTIFIER.match(user_id):
        path_parameters["id"] = IDP_USER
    return path_parameters


@schemathesis.hook
def map_body(ctx, body):
    # A generated `module_*_enabled: false` would turn whole families into
    # 403/404 for the rest of the run: the settings keep every module on.
    if ctx.operation is not None and ctx.operation.path == SITE_SETTINGS and isinstance(body, dict):
        for name in list(body):
            if name.startswith("module_") and name.endswith("_enabled"):
                body[name] = True
    return body


# The event stream never ends by design: schemathesis reads it until the request
# timeout. A second holds the replayed events; the run's 30 s would make the
# hundred cases of this one operation take most of the run.
EVENT_STREAM = "/api/v1/sites/{site_id}/events"


@schemathesis.hook
def before_call(ctx, case, kwargs):
    if case.operation.path == EVENT_STREAM:
        kwargs["timeout"] = 1
    keep_the_fixture_site_usable(case)


SITE = "/api/v1/sites/{id}"


def keep_the_fixture_site_usable(case):
    """Every phase's cases pass here (the coverage phase does not go through
    `map_body`): the fixture site keeps every module on and its slug, or whole
    families turn into 403 MODULE_NOT_ENABLED and the slug routes into 404 for
    the rest of the run."""
    body = case.body
    if not isinstance(body, dict):
        return
    path = case.operation.path
    if path == SITE_SETTINGS:
        for name in list(body):
            if name.startswith("module_") and name.endswith("_enabled"):
                body[name] = True
    elif path == SITE and case.operation.method.upper() == "PUT" and case.path_parameters.get("id") == FIXTURES.get("site"):
        body.pop("slug", None)


@schemathesis.check
def problem_json_has_code(ctx, response, case):
    """A problem+json answer carries a non-empty `code` and its own status."""
    content_types = response.headers.get("content-type") or [""]
    if not content_types[0].lower().startswith("application/problem+json"):
        return None
    try:
        problem = json.loads(response.content)
    except ValueError as error:
        raise AssertionError(f"problem+json body is not JSON: {error}") from None
    if not isinstance(problem, dict):
        raise AssertionError("problem+json body is not an object")
    code = problem.get("code")
    if not isinstance(code, str) or not code:
        raise AssertionError(f"problem+json without a `code`: {problem}")
    if problem.get("status") != response.status_code:
        raise AssertionError(
            f"problem `status` {problem.get('status')!r} differs from the HTTP status {response.status_code}"
        )
    return None
