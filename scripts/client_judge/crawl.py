"""Reads every GET operation of the served document that the fixtures of
scripts/fuzz_fixtures.py make reachable, and records each answer as a JSON
line (`{"method", "path", "status", "body"}`) for validate.mjs.

An operation is read when every path parameter gets a fixture's id
(scripts/fixture_paths.py) and every required query parameter a value its
schema names (an example, a default or the first of an enum); answers that
are not JSON (an event stream, a feed, a file) are not read. What was left
out is printed, so a newly unreachable family shows.

Usage: python3 crawl.py BASE_URL API_KEY DOCUMENT FIXTURES_JSON ANSWERS_FILE
"""

import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from fixture_paths import fill  # noqa: E402

PARAMETER = re.compile(r"\{([^}]+)\}")


def a_value(schema):
    for key in ("example", "default"):
        if key in schema:
            return schema[key]
    if schema.get("enum"):
        return schema["enum"][0]
    return None


def answers_json(operation):
    for status, response in operation.get("responses", {}).items():
        if status.startswith("2"):
            content = response.get("content") or {}
            return not content or any(kind.endswith("json") for kind in content)
    return False


def main():
    base, key, document, fixtures, answers = sys.argv[1:6]
    doc = json.load(open(document, encoding="utf-8"))
    fixtures = json.loads(fixtures)
    read, left_out = 0, []
    for path, item in sorted(doc["paths"].items()):
        operation = item.get("get")
        if operation is None:
            continue
        if not answers_json(operation):
            left_out.append(f"{path} (not JSON)")
            continue
        names = PARAMETER.findall(path)
        filled = fill(path, "GET", {name: None for name in names}, fixtures)
        if any(value is None for value in filled.values()):
            left_out.append(f"{path} (no fixture for {[n for n, v in filled.items() if v is None]})")
            continue
        query = {}
        for parameter in operation.get("parameters", []):
            if parameter.get("in") == "query" and parameter.get("required"):
                query[parameter["name"]] = a_value(parameter.get("schema", {}))
        if any(value is None for value in query.values()):
            left_out.append(f"{path} (a required query parameter without a value)")
            continue
        concrete = PARAMETER.sub(lambda m: urllib.parse.quote(str(filled[m.group(1)]), safe=""), path)
        url = base.rstrip("/") + concrete + ("?" + urllib.parse.urlencode(query) if query else "")
        request = urllib.request.Request(url, headers={"X-API-Key": key, "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")[:200]
        with open(answers, "a", encoding="utf-8") as out:
            out.write(json.dumps({"method": "GET", "path": concrete, "status": status, "body": body}) + "\n")
        read += 1
    print(f"crawl: read {read} GET operations; left out {len(left_out)}:")
    for line in left_out:
        print(f"  {line}")


if __name__ == "__main__":
    main()
