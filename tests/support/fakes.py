"""Fakes of the app's collaborators, for tests that decide exactly when each thing happens: ``HandRunner``, an
engine runner (``webapp.search.jobs.Runner``) whose searches the test answers itself."""

from __future__ import annotations

from typing import Any

from webapp.search.jobs import EventHandler, SearchJob


class HandRunner:
    """A ``Runner`` that runs nothing: it keeps each submitted job and its handler for the test to answer."""

    def __init__(self) -> None:
        self.submitted: list[tuple[SearchJob, EventHandler]] = []
        self.cancelled: list[str] = []

    def submit(self, job: SearchJob, on_event: EventHandler) -> None:
        self.submitted.append((job, on_event))

    def cancel(self, key: str, reason: str) -> SearchJob | None:
        self.cancelled.append(key)
        return None

    def state_of(self, key: str) -> str:
        return "idle"

    def current_job(self, key: str) -> SearchJob | None:
        return None

    def close(self) -> None:
        pass

    def answer(self, info: dict[str, Any]) -> SearchJob:
        """Send ``info`` as the latest submitted job's event; returns that job."""
        job, on_event = self.submitted[-1]
        on_event(job, info)
        return job
