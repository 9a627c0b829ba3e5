"""Creates what scripts/fuzz aims at: one site with every module on and a second
language, one item of each kind that has its own `/api/v1/<kind>/{id}` routes,
and a localization of each localizable one. Prints their ids as
JSON (`{"site": id, "blogs": id, …}`) for scripts/fuzz_hooks.py, which puts them
into generated paths so the fuzzer reaches the handlers behind the lookups
instead of answering 404 a thousand times.

Usage: python3 fuzz_fixtures.py BASE_URL API_KEY WEBHOOK_RECEIVER_URL

With PLINTH_RECORD_ANSWERS set to a file, every answer is also appended there
as a JSON line (`{"method", "path", "status", "body"}`): scripts/client_judge
validates them with a generated client's schemas.
"""

import json
import os
import sys
import urllib.error
import urllib.request

BASE, KEY, RECEIVER = sys.argv[1].rstrip("/") + "/api/v1", sys.argv[2], sys.argv[3]


def record(method, path, status, answer):
    if os.environ.get("PLINTH_RECORD_ANSWERS"):
        line = {"method": method, "path": "/api/v1" + path, "status": status, "body": answer}
        with open(os.environ["PLINTH_RECORD_ANSWERS"], "a", encoding="utf-8") as answers:
            answers.write(json.dumps(line) + "\n")


def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(BASE + path, data=data, method=method)
    request.add_header("X-API-Key", KEY)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            answer = json.loads(response.read() or b"null")
            record(method, path, response.status, answer)
            return answer
    except urllib.error.HTTPError as error:
        raise SystemExit(f"{method} {path} -> {error.code}: {error.read()[:300]!r}") from None


def main():
    ids = {}
    site = call("POST", "/sites", {"name": "Fuzz", "slug": "fuzz", "description": "target of the fuzz run"})["id"]
    ids["site"] = site
    modules = ["ai", "blog", "documents", "forms", "legal", "pages", "portfolio"]
    settings = {f"module_{m}_enabled": True for m in modules} | {"analytics_enabled": True}
    call("PUT", f"/sites/{site}/settings", settings)

    content = {"site_ids": [site]}
    for kind in ["blogs", "pages", "projects", "skills", "legal"]:
        ids[kind] = call("POST", f"/{kind}", content | {"title": f"Fuzz {kind}"})["id"]
    ids["cv"] = call("POST", "/cv", content | {"title": "Fuzz CV", "start_date": "2020-01-01"})["id"]

    on_site = {
        "categories": {"name": "Fuzz"},
        "tags": {"name": "Fuzz"},
        "menus": {"name": "Fuzz"},
        "media-folders": {"name": "Fuzz"},
        "document-folders": {"name": "Fuzz"},
        "environments": {"name": "fuzz"},
        "forms": {"name": "Fuzz", "slug": "fuzz"},
        "form-templates": {"name": "Fuzz"},
        "redirects": {"source_path": "/old", "destination": "/new"},
        "social-links": {"url": "https://example.org/fuzz"},
        "webhooks": {"url": RECEIVER, "events": ["blog.created"]},
        "documents": {"title": "Fuzz", "url": "https://example.org/doc.pdf"},
    }
    for kind, body in on_site.items():
        ids[kind] = call("POST", f"/sites/{site}/{kind}", body)["id"]
    ids["menu-items"] = call("POST", f"/menus/{ids['menus']}/items", {"labels": {"en": "Fuzz"}, "url": "/fuzz"})["id"]
    # A key of the site's own (never the run's Master key) for `/api-keys/{id}`:
    # the run may block, change or revoke it.
    ids["api-keys"] = call("POST", "/api-keys", {"name": "Fuzz", "permission": "Read", "site_id": site})["id"]

    # A second language on the site, and a localization of each kind into it
    # (`/<kind>/localizations/{loc_id}`).
    german = next(locale["id"] for locale in call("GET", "/locales") if locale["code"] == "de")
    call("POST", f"/sites/{site}/locales", {"locale_id": german})
    localization = {"locale_id": german, "title": "Fuzz", "name": "Fuzz"}
    for kind in ["blogs", "pages", "projects", "skills", "legal", "cv", "categories", "tags", "documents"]:
        ids[f"{kind}-localization"] = call("POST", f"/{kind}/{ids[kind]}/localizations", localization)["id"]
    print(json.dumps(ids))


if __name__ == "__main__":
    main()
