"""A download that carries the study it came from (issue 39): the file and ``FILE.study.yaml`` beside it
in one zip, named as ``export_judgments`` names them on disk. The pages link to it
(``?with=study``); the same URL without it stays the bare file for scripts (the runs API carries the
study in the run's JSON). A run made before runs kept their study gets no study file it never
had: a note says so, beside the campaign's study as of the download under a name saying what it is
(``run_bundle``)."""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any

from django.http import HttpRequest, StreamingHttpResponse
from django.utils import timezone

from ranking.campaign_settings import SETTINGS
from ranking.study.documents import study_dump

WITH_STUDY = "study"
"""``?with=study``: the download as a zip with its study file."""

_FLUSH = 1 << 16


class _Sink:
    """A write-only stream: ``zipfile`` writes a member's size after its data (a data descriptor) when it
    cannot seek, so the zip goes out as it is made, a large judgment export included."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0

    def write(self, data: bytes) -> int:
        self.parts.append(bytes(data))
        self.size += len(data)
        return len(data)

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        out = b"".join(self.parts)
        self.parts.clear()
        self.size = 0
        return out


def _zipped(members: list[tuple[str, Iterable[str | bytes]]]) -> Iterator[bytes]:
    sink = _Sink()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as bundle:  # type: ignore[arg-type]
        for name, chunks in members:
            with bundle.open(name, "w", force_zip64=True) as member:
                for chunk in chunks:
                    member.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
                    if sink.size >= _FLUSH:
                        yield sink.take()
            yield sink.take()
    yield sink.take()


def wants_study(request: HttpRequest) -> bool:
    return request.GET.get("with") == WITH_STUDY


def study_bundle(
    *, filename: str, chunks: Iterable[str | bytes], study: dict[str, Any]
) -> StreamingHttpResponse:
    """``filename`` (its content streamed from ``chunks``) and ``filename.study.yaml``, as one zip."""
    return _bundle(filename, chunks, [(f"{filename}.study.yaml", study_dump(study))])


CURRENT_STUDY = "campaign-study-now.yaml"
NO_SNAPSHOT = "NO-STUDY-SNAPSHOT.txt"


def run_bundle(
    *,
    filename: str,
    chunks: Iterable[str | bytes],
    snapshot: dict[str, Any],
    run_label: str,
    made: datetime,
    campaign_study: Callable[[], dict[str, Any]],
) -> StreamingHttpResponse:
    """An analysis run's file with the study the run saw (``snapshot``, saved with the run). A run made
    before runs kept their study has none: its zip then holds no ``.study.yaml`` (which would claim
    today's study as the run's) but a note saying so and the campaign's study as of now, under a name
    and a heading that say what it is, for what is fixed at launch (corpus, systems, protocol)."""
    if snapshot:
        return study_bundle(filename=filename, chunks=chunks, study=snapshot)
    now = timezone.now()
    stamp = "%Y-%m-%d %H:%M UTC"
    changeable = ", ".join(s.name for s in SETTINGS if s.after_launch)
    note = (
        f"{run_label} was made on {made:{stamp}}, before analysis runs kept the study file they came from.\n"
        "The study as this run saw it is not known, so this zip holds no study file of the run.\n\n"
        f"{filename}.{CURRENT_STUDY} is the campaign's study as of this download ({now:{stamp}}), for\n"
        "reference only. What is fixed once a campaign is launched (corpus, systems, protocol, screens,\n"
        "traps, sample) is as the run had it if the campaign was launched before the run. What may change\n"
        f"after launch may differ from the run's: {changeable}, the crowd settings; and judgments\n"
        "may have come in or workers been excluded since.\n\n"
        "To cite results with the study they came from, run the analysis again: a new run keeps its study.\n"
    )
    current = (
        f"# NOT the study of {run_label} (made {made:{stamp}}, before runs kept their study):\n"
        f"# the campaign's study as of {now:{stamp}}. See {filename}.{NO_SNAPSHOT}\n"
        + study_dump(campaign_study())
    )
    return _bundle(
        filename, chunks, [(f"{filename}.{NO_SNAPSHOT}", note), (f"{filename}.{CURRENT_STUDY}", current)]
    )


def _bundle(
    filename: str, chunks: Iterable[str | bytes], beside: list[tuple[str, str]]
) -> StreamingHttpResponse:
    stem = filename.rsplit(".", 1)[0]
    response = StreamingHttpResponse(
        _zipped([(filename, chunks), *((name, [text]) for name, text in beside)]),
        content_type="application/zip",
    )
    response["Content-Disposition"] = f'attachment; filename="{stem}.zip"'
    return response
