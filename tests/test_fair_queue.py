"""The fair queue's choice of the next search: a client's share, live turns before background work, the least
served client first, arrival order last."""

from __future__ import annotations

from dataclasses import dataclass

from webapp.search.fair_queue import BACKGROUND, EXPLORATION, LIVE, FairQueue, background_slots, client_share


@dataclass(frozen=True)
class Job:
    id: int
    client: str
    priority: int = LIVE


def test_a_client_gets_half_the_workers_and_at_least_one():
    assert [client_share(workers) for workers in (1, 2, 3, 4, 8)] == [1, 1, 1, 2, 4]


def test_a_client_at_its_share_waits_even_when_nobody_else_does():
    queue: FairQueue[Job] = FairQueue(share=1)
    queue.push(Job(1, "hog"))
    assert queue.take({"hog": 1}) is None
    assert queue.take({"hog": 0}) == Job(1, "hog")
    assert len(queue) == 0


def test_a_newcomer_goes_before_a_client_with_many_waiting_games():
    queue: FairQueue[Job] = FairQueue(share=2)
    for job_id in range(1, 21):
        queue.push(Job(job_id, "hog"))
    queue.push(Job(21, "victim"))
    assert queue.position(Job(21, "victim")) == 21  # by arrival, before any share is counted
    assert queue.take({"hog": 1}) == Job(21, "victim")
    assert queue.take({"hog": 1, "victim": 1}) == Job(1, "hog")
    assert queue.take({"hog": 2, "victim": 1}) is None


def test_live_turns_go_before_background_work_whatever_their_arrival():
    queue: FairQueue[Job] = FairQueue(share=1)
    queue.push(Job(1, "lab user", BACKGROUND))
    queue.push(Job(2, "lab user", BACKGROUND))
    queue.push(Job(3, "player"))
    assert queue.position(Job(3, "player")) == 1 and queue.position(Job(2, "lab user", BACKGROUND)) == 3
    assert [queue.take({}), queue.take({}), queue.take({})] == [Job(3, "player"), Job(1, "lab user", BACKGROUND),
                                                                Job(2, "lab user", BACKGROUND)]


def test_a_removed_job_is_never_handed_out():
    queue: FairQueue[Job] = FairQueue(share=1)
    queue.push(Job(1, "a"))
    queue.push(Job(2, "b"))
    assert queue.remove(Job(1, "a")) and not queue.remove(Job(1, "a"))
    assert Job(1, "a") not in queue and Job(2, "b") in queue
    assert queue.take({}) == Job(2, "b") and queue.take({}) is None


def test_background_work_leaves_a_worker_to_live_turns():
    assert [background_slots(workers) for workers in (1, 2, 3, 8)] == [1, 1, 2, 7]
    queue: FairQueue[Job] = FairQueue(share=1, background_limit=1)
    queue.push(Job(1, "visitor a", BACKGROUND))
    queue.push(Job(2, "visitor b", BACKGROUND))
    assert queue.take({}, background=0) == Job(1, "visitor a", BACKGROUND)
    assert queue.take({"visitor a": 1}, background=1) is None  # the second worker waits for a live turn
    queue.push(Job(3, "player"))
    assert queue.take({"visitor a": 1}, background=1) == Job(3, "player")
    assert queue.take({"visitor a": 1, "player": 1}, background=0) == Job(2, "visitor b", BACKGROUND)


def test_exact_values_go_before_an_open_ended_analysis_search():
    queue: FairQueue[Job] = FairQueue(share=1, background_limit=1)
    queue.push(Job(1, "visitor a", EXPLORATION))
    queue.push(Job(2, "visitor b", BACKGROUND))
    assert queue.take({}, background=0) == Job(2, "visitor b", BACKGROUND)
    assert queue.take({"visitor b": 1}, background=1) is None  # an exploration counts as background work too
    assert queue.take({}, background=0) == Job(1, "visitor a", EXPLORATION)


def test_background_waits_only_for_a_client_below_its_share():
    queue: FairQueue[Job] = FairQueue(share=1, background_limit=1)
    queue.push(Job(1, "visitor a", BACKGROUND))
    assert queue.background_waits({}) and not queue.background_waits({"visitor a": 1})
    queue.push(Job(2, "player"))
    assert not queue.background_waits({"visitor a": 1})  # a live turn is not background work
