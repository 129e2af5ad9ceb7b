"""The input of `ingestMeeting`: a meeting's title, day, attendees and notes."""

from __future__ import annotations

from datetime import date

import strawberry


@strawberry.input(description="Someone who was in the meeting.")
class AttendeeInput:
    name: str = strawberry.field(description=(
        "Their name, 1-200 characters. Binds to the person note (kind `person`) of exactly this name (its slug: "
        "case and punctuation aside); a partial name never binds. Else the edge waits on a ghost of the name's slug."))
    email: str | None = strawberry.field(default=None, description=(
        "Their email: binds to the person note whose front-matter `email` is this (case-insensitive), before the "
        "name is tried."))


@strawberry.input(description="A meeting to record as a note of kind `meeting` at meetings/<date>-<title slug>.")
class MeetingInput:
    title: str = strawberry.field(description="The meeting's title; with the date it makes the slug.")
    date: date = strawberry.field(description="The day it took place, 1900-01-01 to 2200-12-31.")
    attendees: list[AttendeeInput] | None = strawberry.field(default_factory=list, description=(
        "Who was there, at most 100: one ATTENDED edge each (the same name twice is one edge)."))
    body: str | None = strawberry.field(default="", description=(
        "The notes or transcript, markdown; its front matter gains kind, date and attendees. Ingesting the same "
        "date and title again replaces it and the attendee edges (never a second note)."))
