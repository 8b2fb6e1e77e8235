"""A helper of the tests (any file of the skill's tests folder that is not test_<scenario>.py)."""

from tally import Ledger


def ledger_with(**balances: int) -> Ledger:
    """A ledger with these accounts and opening balances, in cents."""
    ledger = Ledger()
    for account, cents in balances.items():
        ledger.open(account, cents)
    return ledger
