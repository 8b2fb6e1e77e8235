"""A scripted demo model: reads the prompt on stdin and answers deterministically from it.

Without the skill it writes what many models write (floats); with the skill in the prompt it
uses tiny_money. It stands in for a real model so the pipeline runs offline.
"""

import sys

prompt = sys.stdin.read()
with_skill = "tiny_money" in prompt

if "restaurant bill" in prompt:
    if with_skill:
        answer = '''```python
from tiny_money import Money


def split_bill(total_eur: str, people: int) -> list[Money]:
    return Money.of(total_eur, "EUR").allocate([1] * people)
```'''
    else:
        answer = '''```python
def split_bill(total_eur: str, people: int) -> list[float]:
    share = round(float(total_eur) / people, 2)
    return [share] * people
```'''
elif "shopping cart" in prompt:
    if with_skill:
        answer = '''```python
from tiny_money import Money, total


def receipt_total(prices: list[str]) -> str:
    return total([Money.of(p, "EUR") for p in prices], "EUR").format()
```'''
    else:
        answer = '''```python
def receipt_total(prices: list[str]) -> str:
    return f"{sum(float(p) for p in prices):.2f} EUR"
```'''
else:
    answer = "I do not know this task."

print(answer)
