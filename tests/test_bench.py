"""The benchmarks behind ``python -m engine bench``."""

from engine.bench import stop_latencies


def test_a_search_that_ends_before_the_stop_adds_no_latency():
    # tic-tac-toe is solved long before the stop flag would be set: nothing to measure, and no crash
    assert stop_latencies("tictactoe", after=30, runs=2) == []


def test_a_stopped_search_gives_one_latency_per_run():
    # an unlimited search of the empty board cannot end by itself: each one ended because its stop flag was set
    # (how soon is bench/'s to measure, not this test's)
    assert len(stop_latencies("connect4", after=0.05, runs=2)) == 2
