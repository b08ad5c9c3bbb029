"""Corpus import and export in the layouts GEC research uses.

Layouts (text is stored as given; every written line ends with ``\\n``):

``jfleg``
    ``NAME.src`` (one source sentence a line) and ``NAME.ref0..N`` (one
    line-aligned file per reference). On import PATH is the prefix
    (``dir/test``) and the references become systems of kind ``reference``
    named after their suffix (``ref0``...). On export the reference systems, in
    natural name order, are written ``NAME.ref0..N-1``. A corpus imported from
    this layout exports byte-identical files.
``gmeg``
    A domain folder (``data/dev/fce``) with ``source``, ``ref0..N`` (kind
    reference), ``source+error`` (kind source+error) and any other regular file
    as a system output (kind model); hidden files are ignored. The domain is the
    folder's name unless given. Import also takes a folder of domain folders
    (``data/dev``): domains in name order, one corpus. Export writes
    ``DIR/<domain>/source``, ``ref0..N-1`` and one file per other system.
``m2``
    ``NAME.m2``. Import: the S line is the (tokenised) source, each annotator's
    corrected text is a reference ``ref<annotator id>``, and each sentence keeps
    its ``A`` lines in ``metadata["m2"] = {"edits": [...], "annotators": [...]}``.
    Export: one annotator per reference (``ref<k>`` is annotator k, other names
    the next free ids); typed by ERRANT, except that stored edits still matching
    their reference are written as imported (so an imported M2 file comes back
    identical); ``untyped`` aligns every reference by Levenshtein (type ``X``).
``text`` (import only)
    One sentence a line.
``jsonl``
    One JSON object per sentence, in corpus order::

        {"text": str,                      # the source sentence, as stored
         "domain": str, "document_id": str,
         "paragraph_position": int | null, # position within its document's paragraph
         "metadata": {...},                # any JSON object (e.g. the stored M2 edits)
         "references": {name: str},        # systems of kind reference
         "outputs": {name: str},           # every other system
         "output_kinds": {name: kind},     # only outputs whose kind is not "model"
         "rewrites": [...]}                # campaign exports only; ignored on import

    Every line names the same references and outputs. Only ``text`` is
    required on import; unknown fields are refused (naming the line).

Corpus-level fields (name, language, the tokenised flag) are not in the files:
the import command takes them as options (M2 is always tokenised).
"""

from annotate.formats.data import CorpusData, SystemData
from annotate.formats.readers import FORMATS, load
from annotate.formats.writers import EXPORT_FORMATS, write

__all__ = ["EXPORT_FORMATS", "FORMATS", "CorpusData", "SystemData", "load", "write"]
