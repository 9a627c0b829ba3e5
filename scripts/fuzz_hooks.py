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
import sys

import schemathesis

# Loaded by path (SCHEMATHESIS_HOOKS): its folder holds the shared mapping.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_paths import fill  # noqa: E402

FIXTURES = json.loads(os.environ.get("PLINTH_FUZZ_FIXTURES") or "{}")
SITE_SETTINGS = "/api/v1/sites/{site_id}/settings"


@schemathesis.hook
def map_path_parameters(ctx, path_parameters):
    operation = ctx.operation
    if not path_parameters or operation is None:
        return path_parameters
    return fill(operation.path, operation.method, path_parameters, FIXTURES)


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
