"""Instruction texts for the presets, paraphrased (not quoted) from the papers' annotator guidelines.

Minimal and fluency follow Sakaguchi et al. (2016, "Reassessing the goals of
grammatical error correction"), JFLEG follows Napoles et al. (2017), GMEG
follows Napoles, Nădejde and Tetreault (2019). The researcher edits the full
text when creating a campaign; what is stored is what workers see.
"""

from __future__ import annotations

from annotate.models import RewritePreset

MINIMAL = """\
Correct the grammatical errors in the sentence while changing as little as possible.

- Fix errors of grammar, spelling, punctuation and word choice that make the sentence wrong in standard written English.
- Make the smallest change that makes the sentence correct: do not rephrase text that is already correct, even if you would say it differently.
- Keep the writer's meaning. Do not add or remove information.
- If the sentence is already correct, submit it unchanged.
"""

FLUENCY = """\
Rewrite the sentence so that it sounds natural and fluent to a native speaker, while keeping its meaning.

- You may rephrase, reorder, replace words and restructure the sentence: fluency, not minimal change, is the goal.
- Fix every grammatical, spelling and punctuation error as well.
- Keep the writer's meaning and the information in the sentence; do not add new ideas.
- If the sentence already reads naturally, submit it unchanged.
"""

JFLEG = """\
You will see a sentence written by a learner of English. Rewrite it so that it is grammatical and sounds fluent, as a native speaker would write it.

- Make the changes needed for the sentence to read naturally: correct grammar, spelling and punctuation, and rephrase awkward or unidiomatic wording.
- Preserve the original meaning as far as it can be understood. Do not add information.
- Change only what needs changing: if part of the sentence is already fine, leave it as it is.
- If the sentence is already correct and fluent, submit it unchanged.
- Rate how difficult the sentence was to correct, from 1 (very easy) to 5 (very hard).
"""

GMEG = """\
You will see a sentence with the text around it (the previous and next sentences are shown dimmed). Correct the sentence so that it is grammatical and fluent in its context.

- Correct grammar, spelling, punctuation and word choice; rephrase where the wording is unnatural. Use the surrounding sentences to decide, for example, on tense, reference and agreement.
- Keep the meaning; do not add or remove information.
- Correct only the highlighted sentence; if it is already fine, submit it unchanged.
- Use a flag instead of a rewrite when the sentence cannot be corrected on its own:
  MERGE: it belongs together with the next sentence (it was split in the wrong place);
  FRAGMENT: it is only a piece of a sentence (for example a heading or a broken line);
  NOT ANNOTATABLE: it is not English, is unreadable, or is not a sentence at all.
"""

PRESET_INSTRUCTIONS: dict[str, str] = {
    RewritePreset.MINIMAL: MINIMAL,
    RewritePreset.FLUENCY: FLUENCY,
    RewritePreset.JFLEG: JFLEG,
    RewritePreset.GMEG: GMEG,
}
