"""A scripted demo model: reads the prompt on stdin and answers the same way every time.

With the skill's conventions in the prompt it writes the handler they describe (201, 409, 422, no
throw). Without them it writes what many models write first: 200 for a new user, 400 for a taken
email, and no password rule. It follows the output contract in both arms.
"""

import sys

prompt = sys.stdin.read()
with_skill = "--- CONVENTIONS ---" in prompt

FOLLOWS_SKILL = """```ts
type Deps = {
  isEmailTaken: (email: string) => Promise<boolean>;
  createUser: (user: { email: string; password: string }) => Promise<unknown>;
};

export const result = (deps: Deps) => async (input: { email: string; password: string }) => {
  const errors: { email?: string; password?: string } = {};
  if (!/^[^@\\s]+@[^@\\s]+$/.test(input.email)) errors.email = 'not a valid email';
  if (input.password.length < 12) errors.password = 'use 12 characters or more';
  if (Object.keys(errors).length > 0) return { status: 422, body: { errors } };
  if (await deps.isEmailTaken(input.email)) return { status: 409, body: { error: 'email-taken' } };
  return { status: 201, body: await deps.createUser(input) };
};

export const reason = 'The conventions fix each status; the function gets its dependencies as parameters.';
```"""

PLAIN = """```ts
export const result = (deps) => async ({ email, password }) => {
  if (await deps.isEmailTaken(email)) {
    return { status: 400, body: { message: 'Email already in use' } };
  }
  const user = await deps.createUser({ email, password });
  return { status: 200, body: user };
};

export const reason = 'A straightforward handler.';
```"""

if "signup" in prompt:
    print(("Here is the handler.\n\n" + FOLLOWS_SKILL) if with_skill else ("Sure:\n\n" + PLAIN))
else:
    print("I do not know this task.")
