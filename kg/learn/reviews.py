"""Spaced repetition: the person's review history and the schedule it gives.

learning/reviews.jsonl is the person's data, append-only, one rating per line
({"card": id, "rating": "good", "at": "2026-11-26T10:00:00Z"}): a rating is confirmed once its
line is written and synced, so a review killed mid-way loses nothing confirmed. The schedule is
not stored: it is FSRS (the `fsrs` package, fuzzing off) replayed over the history, so it cannot
disagree with the history or be lost with .kg/. A damaged line is reported and skipped.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kg.errors import KgError

REVIEWS = "reviews.jsonl"
RATINGS = ("again", "hard", "good", "easy")
NEW_CARD_DUE = datetime(1970, 1, 1, tzinfo=UTC)  # a card never reviewed is due


@dataclass(frozen=True)
class Review:
    card: str
    rating: str
    at: datetime


@dataclass
class CardSchedule:
    due: datetime
    state: str  # new | learning | review | relearning
    reviews: int
    last_review: datetime | None


def parse_time(text: str) -> datetime:
    """An ISO 8601 time; without a zone it is UTC."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except (ValueError, OverflowError):
        raise KgError(f"Cannot read the time {text!r}: give it as ISO 8601, e.g. 2026-11-26T09:30:00Z.") from None
    if not 1970 <= value.year <= 9000:
        raise KgError(f"The time {text!r} is out of range: give a time after 1970.")
    return value


def iso(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def read_reviews(learning: Path) -> tuple[list[Review], list[str]]:
    """The history in file order, and one message per damaged line (skipped)."""
    path = learning / REVIEWS
    if not path.is_file():
        return [], []
    reviews, problems = [], []
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw.decode("utf-8"))
                review = Review(str(row["card"]), str(row["rating"]), parse_time(str(row["at"])))
                if review.rating not in RATINGS:
                    raise ValueError(f"unknown rating {review.rating!r}")
            except (ValueError, KeyError, TypeError, KgError, UnicodeDecodeError, OverflowError) as exc:
                problems.append(f"learning/{REVIEWS} line {number} is damaged and was skipped ({exc}); "
                                "fix or delete that line by hand")
                continue
            reviews.append(review)
    return reviews, problems


def append_review(learning: Path, review: Review) -> None:
    """Append one rating and sync it to disk (then it is confirmed)."""
    learning.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"card": review.card, "rating": review.rating, "at": iso(review.at)}, ensure_ascii=False)
    path = learning / REVIEWS
    try:
        with path.open("ab") as handle:
            if handle.tell() and not _ends_with_newline(path):
                handle.write(b"\n")  # a line cut by a crash stays damaged, but alone
            handle.write(line.encode("utf-8") + b"\n")
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        raise KgError(f"Could not record the rating in {path}: {exc.strerror or exc}. Nothing was recorded; "
                      "check free disk space and write permission, then rate again.") from exc


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def schedule(card_ids: list[str], reviews: list[Review]) -> dict[str, CardSchedule]:
    """Each card's schedule after replaying its ratings (by time, then file order) through FSRS."""
    from fsrs import Card, Rating, Scheduler, State

    scheduler = Scheduler(enable_fuzzing=False)
    ratings = {"again": Rating.Again, "hard": Rating.Hard, "good": Rating.Good, "easy": Rating.Easy}
    by_card: dict[str, list[tuple[datetime, int, str]]] = {card: [] for card in card_ids}
    for n, review in enumerate(reviews):
        if review.card in by_card:
            by_card[review.card].append((review.at, n, review.rating))
    states = {State.Learning: "learning", State.Review: "review", State.Relearning: "relearning"}
    out = {}
    for card_id, history in by_card.items():
        card = Card(card_id=0, due=NEW_CARD_DUE)
        for at, _, rating in sorted(history):
            card, _log = scheduler.review_card(card, ratings[rating], review_datetime=at)
        out[card_id] = CardSchedule(due=card.due, state=states.get(card.state, "learning") if history else "new",
                                    reviews=len(history), last_review=card.last_review)
    return out


def rating_of(text: str) -> str:
    word = text.strip().casefold()
    shortcuts = {"1": "again", "2": "hard", "3": "good", "4": "easy", "a": "again", "h": "hard", "g": "good", "e": "easy"}
    word = shortcuts.get(word, word)
    if word not in RATINGS:
        raise KgError(f"{text!r} is not a rating: use again, hard, good or easy (or 1-4).")
    return word


def as_dict(s: CardSchedule) -> dict[str, Any]:
    return {"due": iso(s.due), "state": s.state, "reviews": s.reviews,
            "last_review": iso(s.last_review) if s.last_review else None}
