"""A scripted demo model: reads the prompt on stdin and answers the same way every time.

With the skill in the prompt it pays with one `transfer` and lets its errors through. Without it,
it writes what many models write first: a balance check of its own, then two posts.
"""

import sys

prompt = sys.stdin.read()
with_skill = "--- CONVENTIONS ---" in prompt

FOLLOWS_SKILL = '''```python
from tally import Ledger


def result(ledger: Ledger, payer: str, payee: str, cents: int) -> int:
    ledger.transfer(payer, payee, cents)
    return ledger.balance(payer)


reason = "transfer moves the money from both accounts or neither, and refuses overdrafts and bad amounts."
```'''

PLAIN = '''```python
def result(ledger, payer, payee, cents):
    if ledger.balance(payer) < cents:
        return ledger.balance(payer)  # not enough money: nothing is paid
    ledger.post(payer, -cents)
    ledger.post(payee, cents)
    return ledger.balance(payer)


reason = "Checks the balance, then moves the money."
```'''

if "tally ledger" in prompt:
    print(("Here is the function.\n\n" + FOLLOWS_SKILL) if with_skill else ("Sure:\n\n" + PLAIN))
else:
    print("I do not know this task.")
