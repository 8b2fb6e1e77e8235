"""A thin client for the few GitHub REST endpoints the action uses, with bounded retries.

Every failure ends as one GitHubError with a one-line reason (the token redacted): the action turns
it into a single warning and never lets it change the exit code.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx

from skill_be.adapters.credentials import Redactor
from skill_be.http_retry import retry_after

API_VERSION = "2022-11-28"


class GitHubError(Exception):
    """A request that failed for good: after its retries, or at once where a retry cannot help."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class Client:
    """`request` retries 5xx answers, timeouts and rate limits (waiting what `retry-after` asks,
    capped at `max_wait` seconds); 4xx answers other than a rate limit fail at once."""

    def __init__(
        self,
        api_url: str,
        token: str,
        redact: Redactor,
        *,
        timeout: float = 10.0,
        attempts: int = 3,
        max_wait: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
        user_agent: str = "skill-be-action",
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self.redact = redact
        self.attempts = max(1, attempts)
        self.max_wait = max_wait
        self.sleep = sleep
        self._http = httpx.Client(
            base_url=self.api_url,
            timeout=timeout,
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": API_VERSION,
                "User-Agent": user_agent,
            },
            follow_redirects=False,
        )

    def close(self) -> None:
        self._http.close()

    def request(self, method: str, path: str, *, json: object = None, params: dict[str, Any] | None = None) -> Any:
        """The decoded JSON answer of a 2xx response (None when it has no body)."""
        response = self._send(method, path, json, params)
        return response.json() if response.content else None

    def pages(self, path: str, *, per_page: int = 100, max_pages: int = 100) -> Iterator[Any]:
        """Every item of a paginated list, following the Link header's `next` page."""
        url: str | None = path
        params: dict[str, Any] | None = {"per_page": per_page}
        for _ in range(max_pages):
            if url is None:
                return
            response = self._send("GET", url, None, params)
            items = response.json()
            if not isinstance(items, list):
                raise GitHubError(f"GET {url}: the answer is not a list")
            url = response.links.get("next", {}).get("url")
            params = None  # the next link carries its own query
            yield from items

    def _send(self, method: str, url: str, json: object, params: dict[str, Any] | None) -> httpx.Response:
        what = f"{method} {url}"
        last = ""
        for attempt in range(1, self.attempts + 1):
            wait = self._backoff(attempt)
            try:
                response = self._http.request(method, url, json=json, params=params)
            except httpx.TimeoutException:
                last = f"{what}: no answer within {self._http.timeout.read} s"
            except httpx.HTTPError as e:
                last = f"{what}: {type(e).__name__}: {e}"
            else:
                if response.is_success:
                    return response
                last = f"{what}: HTTP {response.status_code} {_message(response)}"
                retry = self._retry_wait(response, attempt)
                if retry is None:
                    raise GitHubError(self.redact(last), response.status_code)
                wait = retry
            if attempt < self.attempts:
                self.sleep(wait)
        raise GitHubError(self.redact(f"{last} (tried {self.attempts} times)"))

    def _backoff(self, attempt: int) -> float:
        return float(min(2 ** (attempt - 1), self.max_wait))

    def _retry_wait(self, response: httpx.Response, attempt: int) -> float | None:
        """Seconds to wait before trying again, None when a retry cannot help."""
        status = response.status_code
        asked = retry_after(response.headers)  # skill_be/http_retry.py, as the model adapters read it
        named = "retry-after" in response.headers or "retry-after-ms" in response.headers
        if status in (403, 429) and (named or response.headers.get("x-ratelimit-remaining") == "0"):
            return min(60.0 if asked is None else asked, self.max_wait)
        if status >= 500:
            return self._backoff(attempt)
        return None


def _message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.reason_phrase
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return f"({data['message']})"
    return response.reason_phrase
