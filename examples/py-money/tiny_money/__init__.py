"""tiny_money: amounts are whole cents, so adding and splitting them never drifts."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

__all__ = ["CurrencyMismatchError", "Money", "total"]


class CurrencyMismatchError(ValueError):
    """Raised when two amounts in different currencies are combined."""


@dataclass(frozen=True)
class Money:
    cents: int
    currency: str

    @classmethod
    def of(cls, amount: str | int, currency: str) -> Money:
        """An amount in major units, such as `"12.50"`, rounded to the nearest cent."""
        cents = (Decimal(amount) * 100).quantize(Decimal(1), rounding=ROUND_HALF_EVEN)
        return cls(int(cents), currency)

    def add(self, other: Money) -> Money:
        if other.currency != self.currency:
            raise CurrencyMismatchError(f"cannot add {other.currency} to {self.currency}")
        return Money(self.cents + other.cents, self.currency)

    def allocate(self, ratios: list[int]) -> list[Money]:
        """Splits by ratios without losing a cent: the shares always add up to the amount."""
        whole = sum(ratios)
        floors = [self.cents * r // whole for r in ratios]
        left = self.cents - sum(floors)
        return [Money(c + (1 if i < left else 0), self.currency) for i, c in enumerate(floors)]

    def format(self) -> str:
        return f"{self.cents // 100}.{self.cents % 100:02d} {self.currency}"


def total(amounts: list[Money], currency: str) -> Money:
    """Adds amounts of one currency; an empty list is zero."""
    result = Money(0, currency)
    for amount in amounts:
        result = result.add(amount)
    return result
