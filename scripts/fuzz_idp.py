"""A stand-in identity-provider user API for scripts/fuzz.

Without an identity provider configured, `/api/v1/idp/users…` answer
500 IDP_NOT_CONFIGURED by design (an operator's omission, not a client's), and
the fuzzer would learn nothing about them. This serves the Clerk-compatible
calls Plinth makes (src/state/identity_provider.rs) over two fixed users, so
the fuzzer reaches the real handlers: `GET /users`, `GET /users/count`,
`GET /users/{id}`, `PATCH /users/{id}/metadata`, `DELETE /users/{id}`. It also
takes the deliveries of the fixture webhook (any `POST`, answered 204).

Usage: python3 fuzz_idp.py PORT
"""

import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
USERS = {
    user_id: {
        "id": user_id,
        "email_addresses": [{"id": f"email_{user_id}", "email_address": f"{user_id}@example.org"}],
        "primary_email_address_id": f"email_{user_id}",
        "first_name": name,
        "last_name": None,
        "image_url": None,
        "public_metadata": {},
        "created_at": 1_700_000_000_000,
        "updated_at": 1_700_000_000_000,
        "last_sign_in_at": None,
    }
    for user_id, name in [("user_fuzz_1", "Ada"), ("user_fuzz_2", "Grace")]
}
USER_PATH = re.compile(r"^/users/([^/?]+)(/metadata)?$")


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def user(self):
        match = USER_PATH.match(self.path)
        return (match.group(1), match.group(2)) if match else (None, None)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        with LOCK:
            if path == "/users":
                return self.answer(200, list(USERS.values()))
            if path == "/users/count":
                return self.answer(200, {"total_count": len(USERS)})
            user_id, tail = self.user()
            if user_id in USERS and not tail:
                return self.answer(200, USERS[user_id])
        return self.answer(404, {"errors": [{"code": "resource_not_found"}]})

    def do_PATCH(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        user_id, tail = self.user()
        with LOCK:
            if user_id in USERS and tail:
                USERS[user_id]["public_metadata"].update(body.get("public_metadata") or {})
                return self.answer(200, USERS[user_id])
        return self.answer(404, {"errors": [{"code": "resource_not_found"}]})

    def do_POST(self):
        # Webhook deliveries of the fixture webhook: taken and forgotten.
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(204)
        self.end_headers()

    def do_DELETE(self):
        # Users are never really removed: the next operation still finds them.
        user_id, tail = self.user()
        if user_id in USERS and not tail:
            return self.answer(200, {"id": user_id, "deleted": True})
        return self.answer(404, {"errors": [{"code": "resource_not_found"}]})


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
