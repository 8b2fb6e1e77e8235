"""The tests of scenario "pay": `result` is the model's function, from the module `answer`."""

import pytest
from accounts import ledger_with
from answer import result
from tally import InsufficientFunds


@pytest.fixture
def ledger():
    return ledger_with(alice=1000, bob=0)


def test_moves_the_money_and_returns_the_payers_balance(ledger):
    assert result(ledger, "alice", "bob", 300) == 700
    assert ledger.balance("bob") == 300


def test_refuses_to_overdraw(ledger):
    with pytest.raises(InsufficientFunds):
        result(ledger, "alice", "bob", 5000)


def test_moves_nothing_when_it_refuses(ledger):
    with pytest.raises(Exception):
        result(ledger, "alice", "bob", 5000)
    assert (ledger.balance("alice"), ledger.balance("bob")) == (1000, 0)


@pytest.mark.parametrize("cents", [0, -250])
def test_refuses_an_amount_that_is_not_positive(ledger, cents):
    with pytest.raises(ValueError):
        result(ledger, "alice", "bob", cents)
