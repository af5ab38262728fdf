"""The token bucket behind the event limits and the WebSocket read pace (``webapp.transport.token_bucket``)."""

from __future__ import annotations

from webapp.transport.token_bucket import TokenBucket


class Ticks:
    """A monotonic clock moved by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_allow_takes_tokens_up_to_the_burst_and_refills_at_the_rate():
    ticks = Ticks()
    bucket = TokenBucket(rate=2, burst=3, clock=ticks)
    assert [bucket.allow() for _ in range(4)] == [True, True, True, False]
    ticks.now += 0.5
    assert bucket.allow() and not bucket.allow()
    ticks.now += 60
    assert [bucket.allow() for _ in range(4)] == [True, True, True, False]


def test_charge_takes_more_than_is_left_and_says_how_long_the_debt_lasts():
    ticks = Ticks()
    bucket = TokenBucket(rate=1000, burst=4000, clock=ticks)
    assert bucket.charge(3000) == 0
    assert bucket.charge(3000) == 2.0  # 1000 left, 3000 taken: 2000 owed at 1000 a second
    assert not bucket.allow()
    ticks.now += 2.0
    assert bucket.charge(0) == 0 and not bucket.allow()
    ticks.now += 0.002
    assert bucket.allow()
