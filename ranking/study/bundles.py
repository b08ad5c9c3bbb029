"""A download that carries the study it came from (issue 39): the file and ``FILE.study.yaml`` beside it
in one zip, named as ``export_judgments`` names them on disk. The pages link to it
(``?with=study``); the same URL without it stays the bare file for scripts (the runs API carries the
study in the run's JSON)."""

from __future__ import annotations

import zipfile
from collections.abc import Iterable, Iterator
from typing import Any

from django.http import HttpRequest, StreamingHttpResponse

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
    stem = filename.rsplit(".", 1)[0]
    response = StreamingHttpResponse(
        _zipped([(filename, chunks), (f"{filename}.study.yaml", [study_dump(study)])]),
        content_type="application/zip",
    )
    response["Content-Disposition"] = f'attachment; filename="{stem}.zip"'
    return response
