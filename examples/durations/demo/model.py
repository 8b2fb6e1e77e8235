"""A scripted demo model: reads the prompt on stdin, answers deterministically from it.

It stands in for a real model so the whole pipeline runs offline. Without the skill it writes the
code most models write (bare numbers); with the skill in the prompt it uses tiny-duration.
"""

import re
import sys

prompt = sys.stdin.read()
with_skill = "tiny-duration" in prompt

if "<available_skills>" in prompt:
    # A trigger eval (docs/trigger-evals.md): name the skill to load, or none. The demo loads the
    # duration skill when the request talks about lengths of time, as its description says.
    request = prompt.split("<user_request>")[1].split("</user_request>")[0].lower()
    timely = re.search(r"\b(\d+[hms]|\d+d|timeout|delay|ttl|took|length of time)\b", request)
    print("duration" if timely else "none")
    raise SystemExit

if "REQUEST_TIMEOUT" in prompt:
    if with_skill:
        answer = """```ts
import { Duration, DurationParseError } from 'tiny-duration';

export function requestTimeout(env = process.env): Duration {
  const raw = env.REQUEST_TIMEOUT;
  if (raw === undefined) return Duration.of(30, 's');
  try {
    return Duration.parse(raw);
  } catch (error) {
    if (error instanceof DurationParseError) {
      throw new Error(`REQUEST_TIMEOUT must look like "30s" or "2m", not "${raw}"`);
    }
    throw error;
  }
}
```"""
    else:
        answer = """```ts
export function requestTimeoutMs(env = process.env): number {
  const raw = env.REQUEST_TIMEOUT ?? '30s';
  const match = /^(\\d+)(s|m)$/.exec(raw.trim());
  if (!match) throw new Error(`invalid REQUEST_TIMEOUT: ${raw}`);
  const n = parseInt(match[1], 10);
  return match[2] === 'm' ? n * 60_000 : n * 1000;
}
```"""
elif "build tool" in prompt:
    if with_skill:
        answer = """```ts
import { Duration, total } from 'tiny-duration';

export function summary(steps: { name: string; took: Duration }[]): string {
  return `${steps.length} steps in ${total(steps.map((s) => s.took)).format()}`;
}
```"""
    else:
        answer = """```ts
export function summary(steps: { name: string; ms: number }[]): string {
  const ms = steps.reduce((sum, s) => sum + s.ms, 0);
  const h = Math.floor(ms / 3600000);
  const m = Math.floor((ms % 3600000) / 60000);
  return `${steps.length} steps in ${h}h ${m}m`;
}
```"""
else:
    answer = "I do not know this task."

print(answer)
