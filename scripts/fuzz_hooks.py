"""Schemathesis hooks for scripts/fuzz (loaded through SCHEMATHESIS_HOOKS).

- `problem_json_has_code`: a custom check. Every failure Plinth sends is RFC 7807
  problem+json with a stable machine `code` (the error catalog, `GET
  /api/v1/error-codes`), and its `status` member is the HTTP status it came with.
  Clients branch on `code`; a problem without one is a defect wherever it comes
  from (a handler, an extractor, actix itself).
- `map_path_parameters`: random UUIDs for `{site_id}` only ever reach the "no such
  site" branch. The fuzz script creates one site and exports its id; site-scoped
  operations get that id, so the generated queries and bodies reach the handlers
  behind the site lookup. (`DELETE /sites/{id}` names its parameter `id` and
  keeps a random one, so the site stays for the whole run.)
"""

import json
import os
import re

import schemathesis

SITE_ID = os.environ.get("PLINTH_FUZZ_SITE_ID")


# A user the stand-in identity provider (scripts/fuzz_idp.py) knows.
IDP_USER = "user_fuzz_1"
IDENTIFIER = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


@schemathesis.hook
def map_path_parameters(ctx, path_parameters):
    operation = ctx.operation
    if not path_parameters or operation is None:
        return path_parameters
    if SITE_ID and "site_id" in path_parameters:
        path_parameters["site_id"] = SITE_ID
    # Well-formed user ids become a known user; malformed ones stay, for the
    # IDP_INVALID_IDENTIFIER branch.
    user_id = path_parameters.get("id")
    if operation.path.startswith("/api/v1/idp/users/") and isinstance(user_id, str) and IDENTIFIER.match(user_id):
        path_parameters["id"] = IDP_USER
    return path_parameters


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
