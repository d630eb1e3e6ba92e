"""Secrets as the API server stores them: stringData merged into data, base64-encoded."""
import base64


class Secrets:
    def admit(self, secret):
        plain = secret.pop("stringData", None) or {}
        data = secret.setdefault("data", {})
        for k, v in plain.items():
            data[k] = base64.b64encode(v.encode()).decode()
        secret.setdefault("type", "Opaque")
        return []
