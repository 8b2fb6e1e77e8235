"""tally: a tiny ledger of accounts, in whole cents.

    from tally import Ledger, InsufficientFunds

    ledger = Ledger()
    ledger.open("alice", 1000)
    ledger.open("bob")
    ledger.transfer("alice", "bob", 300)   # alice 700, bob 300
    ledger.balance("alice")                # 700
"""

from __future__ import annotations

__all__ = ["InsufficientFunds", "Ledger", "UnknownAccount"]


class UnknownAccount(KeyError):
    """The ledger has no account of that name."""


class InsufficientFunds(Exception):
    """A transfer asked for more than the payer has; nothing was moved."""

    def __init__(self, account: str, balance: int, cents: int) -> None:
        super().__init__(f"{account} has {balance} cents, {cents} were asked for")
        self.account = account
        self.balance = balance
        self.cents = cents


class Ledger:
    def __init__(self) -> None:
        self._balances: dict[str, int] = {}

    def open(self, account: str, cents: int = 0) -> None:
        """A new account with an opening balance."""
        self._balances[account] = cents

    def balance(self, account: str) -> int:
        if account not in self._balances:
            raise UnknownAccount(account)
        return self._balances[account]

    def post(self, account: str, cents: int) -> None:
        """Adds `cents` (negative: takes them) to one account, without any check: a low-level entry."""
        self._balances[account] = self.balance(account) + cents

    def transfer(self, payer: str, payee: str, cents: int) -> None:
        """Moves `cents` from payer to payee, both or neither: ValueError for an amount that is not a
        positive whole number of cents, InsufficientFunds when the payer has less."""
        if not isinstance(cents, int) or isinstance(cents, bool) or cents <= 0:
            raise ValueError(f"an amount is a positive whole number of cents, not {cents!r}")
        have, _ = self.balance(payer), self.balance(payee)
        if have < cents:
            raise InsufficientFunds(payer, have, cents)
        self._balances[payer] = have - cents
        self._balances[payee] += cents
