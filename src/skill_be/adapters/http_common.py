"""What the `anthropic`, `openai` and `gemini` adapters share: settings (checked by their models:
project/adapter_settings.py), the key, and one POST with
bounded retries on 429 and 5xx (honouring retry-after) inside the call's time limit; every error names
the URL it came from."""

from __future__ import annotations

import asyncio
import json
import random
import ssl
from collections.abc import Mapping
from typing import TYPE_CHECKING

from skill_be.adapters.base import AdapterEnv, CallError, Unreachable
from skill_be.adapters.cli_common import url_setting
from skill_be.adapters.credentials import api_key
from skill_be.errors import ConfigError
from skill_be.http_retry import retry_after
from skill_be.proc import head
from skill_be.project.adapter_check import check_settings
from skill_be.project.config import AdapterEntry

if TYPE_CHECKING:
    import httpx

KEYS = ("adapter", "id", "apiKeyEnv", "baseUrl", "maxTokens", "temperature")
MAX_ATTEMPTS = 4  # the first try and three retries
BACKOFF = (1.0, 2.0, 4.0)  # seconds before retry 1, 2, 3 when the server names no delay
MAX_WAIT = 60.0  # the longest single wait a retry-after may ask for


def error_message(response: httpx.Response) -> str:
    """The API's own error message when the body has one, else the start of the body."""
    try:
        data = response.json()
    except ValueError:
        return head(response.text, 200)
    if isinstance(data, dict):
        err = data.get("error")
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if isinstance(err, str):
            return err
    return head(json.dumps(data), 200)


class HttpAdapter:
    name = ""
    default_base = ""
    default_key_env: str | None = None
    # the settings its entries take, as its model in project/adapter_settings.py checks them; one more,
    # promptCaching, says the adapter has prompt caching
    keys: tuple[str, ...] = KEYS

    def __init__(self, entry: AdapterEntry, env: AdapterEnv) -> None:
        self.entry = entry
        self.env = env
        self.label = env.label or entry.id
        check_settings(entry)
        var = entry.settings.get("apiKeyEnv", self.default_key_env)
        self.key_env = str(var) if var is not None else None
        self.base_url = url_setting(entry, "baseUrl") or self.default_base
        tokens, temp = entry.settings.get("maxTokens"), entry.settings.get("temperature")
        self.max_tokens = tokens if isinstance(tokens, int) else None
        self.temperature: float | None = float(temp) if isinstance(temp, int | float) else None
        self.prompt_caching = self._prompt_caching()
        self._ssl: ssl.SSLContext | None = None
        # One client per event loop, kept across calls: its connections stay open between calls, so
        # a run pays one TCP (and TLS) handshake per connection, not one per call. A client belongs
        # to the loop that made it; a command runs one loop, and `aclose` ends it (wiring/assembly.py).
        self._pool: tuple[asyncio.AbstractEventLoop, httpx.AsyncClient] | None = None

    def caching_default(self) -> bool:
        """promptCaching when the entry does not say (an adapter with the key may change it)."""
        return True

    def cache_minimum(self) -> int | None:
        """The fewest tokens of a stable prefix the provider caches for this model; None: this entry
        does not cache (promptCaching off, or an adapter without it). For `run --dry-run`'s estimate."""
        return None

    def _prompt_caching(self) -> bool:
        """`promptCaching`: the prompt's repeating part marked for the provider's cache (adapters
        that take the key); False for the rest."""
        if "promptCaching" not in self.keys:
            return False
        value = self.entry.settings.get("promptCaching")
        if value is None:
            return self.caching_default()
        return bool(value)

    # -- credentials ------------------------------------------------------------------------------
    def key_required(self) -> bool:
        return True

    def key(self) -> str | None:
        entry = self.entry
        if self.key_env is not None and "apiKeyEnv" not in entry.settings:
            entry = entry._replace(settings={**entry.settings, "apiKeyEnv": self.key_env})
        key = api_key(entry, self.env.environ)
        self.env.redactor.add(key)
        if key is None and self.key_required():
            var = self.key_env or "a variable"
            raise ConfigError(
                f"{self.entry.where.file}: {self.entry.where.path}.apiKeyEnv: {var} is unset or empty; "
                f"the {self.name} adapter sends an API key with every request: export {var}"
            )
        return key

    async def preflight(self) -> None:
        self.key()

    # -- one request with retries -------------------------------------------------------------------
    def _client(self) -> httpx.AsyncClient:
        import httpx

        loop = asyncio.get_running_loop()
        if self._pool is not None and self._pool[0] is loop and not self._pool[1].is_closed:
            return self._pool[1]
        if self._ssl is None:
            # Built once: loading the CA bundle costs tens of milliseconds, and a client builds one
            # even for http:// unless it is handed one.
            self._ssl = httpx.create_ssl_context()
        client = httpx.AsyncClient(verify=self._ssl, timeout=None, follow_redirects=False)
        self._pool = (loop, client)
        return client

    async def aclose(self) -> None:
        """Close the kept connections (the command's end; a later call opens new ones)."""
        pool, self._pool = self._pool, None
        if pool is not None and pool[0] is asyncio.get_running_loop():
            await pool[1].aclose()

    async def post(self, url: str, headers: Mapping[str, str], body: object, timeout_seconds: float) -> object:
        """The JSON body of a 2xx answer. 429 and 5xx are retried (at most MAX_ATTEMPTS tries) after the
        server's retry-after or a backoff, never past `timeout_seconds` for the whole call."""
        import httpx

        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_seconds
        try:
            client = self._client()
            async with asyncio.timeout(timeout_seconds):
                for attempt in range(MAX_ATTEMPTS):
                    response = await client.post(url, json=body, headers=dict(headers))
                    status = response.status_code
                    if status == 429 or status >= 500:
                        why = f"HTTP {status}: {error_message(response)}"
                        if attempt == MAX_ATTEMPTS - 1:
                            raise self.error(f"{why} (after {MAX_ATTEMPTS} tries; {url})")
                        wait = retry_after(response.headers)
                        wait = BACKOFF[attempt] * random.uniform(0.8, 1.2) if wait is None else wait
                        left = deadline - loop.time()
                        if wait > min(MAX_WAIT, left):
                            raise self.error(
                                f"{why}; the server asks to wait {wait:.0f} s, more than the call has left ({url})"
                            )
                        await asyncio.sleep(wait)
                        continue
                    if status >= 400:
                        raise self.error(f"HTTP {status}: {error_message(response)} ({url})")
                    try:
                        data: object = response.json()
                    except ValueError:
                        snippet = head(response.text, 120)
                        raise self.error(f"the response is not JSON: {snippet!r}") from None
                    return data
        except TimeoutError:
            raise self.unreachable(f"no answer from {url} within {timeout_seconds:g} s", url) from None
        except httpx.TransportError as e:  # no reply came: refused, dropped, timed out
            raise self.unreachable(f"{type(e).__name__}: {e or 'request failed'} ({url})", url) from None
        except httpx.HTTPError as e:
            raise self.error(f"{type(e).__name__}: {e or 'request failed'} ({url})") from None
        raise AssertionError("unreachable")  # pragma: no cover

    def error(self, text: str) -> CallError:
        return CallError(self.env.redactor(f"{self.name}: {text}"))

    def unreachable(self, text: str, url: str) -> Unreachable:
        return Unreachable(self.env.redactor(f"{self.name}: {text}"), self.env.redactor(url))

    def describe(self) -> Mapping[str, object]:
        out: dict[str, object] = {
            "adapter": self.name,
            "id": self.entry.id,
            "baseUrl": self.base_url,
            "credential": f"key from {self.key_env}" if self.key_env else "none",
            "retries": f"up to {MAX_ATTEMPTS - 1} on 429 and 5xx, honouring retry-after",
        }
        if self.max_tokens is not None:
            out["maxTokens"] = self.max_tokens
        if self.temperature is not None:
            out["temperature"] = self.temperature
        if "promptCaching" in self.keys and not self.prompt_caching:
            out["promptCaching"] = False
        return out
