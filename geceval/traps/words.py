"""Word lists and English morphology of the error inserter (:mod:`geceval.traps.inserter`).

Small and our own (no tagger: the inserter must be fast and dependency-free); tuples, never
sets, so that choices among them do not depend on ``PYTHONHASHSEED``.
"""

from __future__ import annotations

# fmt: off

SUBJ_PLURAL = ("i", "you", "we", "they")
SUBJ_SINGULAR = ("he", "she", "it")
SUBJECTS = SUBJ_PLURAL + SUBJ_SINGULAR
MODALS = ("can", "could", "will", "would", "shall", "should", "may", "might", "must", "'ll", "cannot")
DO_SUPPORT = (
    "do", "does", "did", "don't", "doesn't", "didn't", "can't", "won't", "wouldn't", "couldn't",
    "shouldn't", "mustn't", "n't", "not",
)
BE_FORMS = ("am", "is", "are", "was", "were", "be", "been", "being", "'m", "'re", "isn't", "aren't")
BE_FORMS += ("wasn't", "weren't")
HAVE_FORMS = ("have", "has", "had", "'ve", "haven't", "hasn't", "hadn't")

SVA_SWAPS: dict[str, str] = {
    "is": "are", "are": "is", "was": "were", "were": "was", "am": "is", "has": "have", "does": "do",
    "isn't": "aren't", "aren't": "isn't", "wasn't": "weren't", "weren't": "wasn't", "hasn't": "haven't",
    "haven't": "hasn't", "doesn't": "don't", "don't": "doesn't",
}
# Only after a plural subject: "to have" / "will do" would be a verb-form error, not agreement.
SVA_AFTER_PLURAL: dict[str, str] = {"have": "has", "do": "does"}

PREPOSITIONS = ("in", "on", "at", "of", "for", "to", "with", "from", "by", "about", "into")
ARTICLES = ("a", "an", "the")
DETERMINERS = (
    "a", "an", "the", "this", "that", "these", "those", "my", "your", "his", "her", "its", "our", "their",
    "some", "any", "no", "every", "each", "many", "much", "several", "few", "both", "all", "another", "one",
    "two", "three",
)
POSSESSIVES = ("my", "your", "his", "our", "their")
SING_CONTEXT_BEFORE = ("a", "an", "one", "every", "each", "this", "another", "either", "neither")
PLUR_CONTEXT_BEFORE = ("these", "those", "many", "several", "few", "both", "various", "numerous")
PLUR_CONTEXT_BEFORE += ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
SING_CONTEXT_AFTER = ("is", "was", "has", "does", "isn't", "wasn't", "hasn't", "doesn't")
PLUR_CONTEXT_AFTER = ("are", "were", "have", "do", "aren't", "weren't", "haven't", "don't")
COMMA_AFTER = ARTICLES + POSSESSIVES + PREPOSITIONS + SUBJECTS + MODALS + ("very", "its", "her")
FINAL_PUNCT = (".", "!", "?")

# Irregular verbs: lemma -> (past, past participle).
IRREGULAR_VERBS: dict[str, tuple[str, str]] = {
    "be": ("was", "been"), "have": ("had", "had"), "do": ("did", "done"), "go": ("went", "gone"),
    "say": ("said", "said"), "make": ("made", "made"), "take": ("took", "taken"), "come": ("came", "come"),
    "see": ("saw", "seen"), "know": ("knew", "known"), "get": ("got", "got"), "give": ("gave", "given"),
    "find": ("found", "found"), "think": ("thought", "thought"), "tell": ("told", "told"),
    "become": ("became", "become"), "leave": ("left", "left"), "feel": ("felt", "felt"),
    "bring": ("brought", "brought"), "begin": ("began", "begun"), "keep": ("kept", "kept"),
    "hold": ("held", "held"), "write": ("wrote", "written"), "stand": ("stood", "stood"),
    "hear": ("heard", "heard"), "let": ("let", "let"), "mean": ("meant", "meant"), "meet": ("met", "met"),
    "run": ("ran", "run"), "pay": ("paid", "paid"), "sit": ("sat", "sat"), "speak": ("spoke", "spoken"),
    "read": ("read", "read"), "grow": ("grew", "grown"), "lose": ("lost", "lost"),
    "fall": ("fell", "fallen"), "send": ("sent", "sent"), "build": ("built", "built"),
    "understand": ("understood", "understood"), "draw": ("drew", "drawn"), "break": ("broke", "broken"),
    "spend": ("spent", "spent"), "drive": ("drove", "driven"), "buy": ("bought", "bought"),
    "wear": ("wore", "worn"), "choose": ("chose", "chosen"), "throw": ("threw", "thrown"),
    "catch": ("caught", "caught"), "win": ("won", "won"), "forget": ("forgot", "forgotten"),
    "sell": ("sold", "sold"), "teach": ("taught", "taught"), "eat": ("ate", "eaten"),
    "drink": ("drank", "drunk"), "sing": ("sang", "sung"), "swim": ("swam", "swum"),
    "fly": ("flew", "flown"), "sleep": ("slept", "slept"), "ride": ("rode", "ridden"),
    "fight": ("fought", "fought"), "put": ("put", "put"), "cut": ("cut", "cut"),
    "steal": ("stole", "stolen"), "lend": ("lent", "lent"), "forgive": ("forgave", "forgiven"),
    "wake": ("woke", "woken"), "hide": ("hid", "hidden"), "shake": ("shook", "shaken"),
}
IRREGULAR_S3 = {"be": "is", "have": "has", "do": "does", "go": "goes"}

REGULAR_VERBS = (
    "want", "like", "love", "need", "use", "help", "work", "play", "live", "try", "ask", "call", "look",
    "seem", "start", "move", "happen", "believe", "include", "continue", "change", "watch", "follow",
    "stop", "create", "open", "walk", "offer", "remember", "consider", "appear", "wait", "expect", "stay",
    "reach", "remain", "suggest", "decide", "return", "explain", "hope", "develop", "carry", "learn",
    "agree", "enjoy", "visit", "travel", "study", "arrive", "finish", "prepare", "organise", "organize",
    "receive", "invite", "answer", "cook", "clean", "dance", "listen", "talk", "improve", "produce",
    "provide", "allow", "add", "plan", "prefer", "discuss", "describe", "imagine", "hate", "miss", "wish",
    "check", "close", "save", "spend", "phone", "join", "pass", "die", "book", "fix", "thank", "apply",
    "admit", "shop", "chat", "drop", "refer", "occur", "regret", "control",
)
DOUBLING = ("stop", "plan", "prefer", "travel", "admit", "shop", "chat", "drop", "refer", "occur")
DOUBLING += ("regret", "control", "get", "begin", "run", "sit", "swim", "put", "cut", "let", "win", "forget")

# Countable nouns (plural by the regular rules unless in IRREGULAR_NOUNS).
NOUNS = (
    "friend", "person", "child", "man", "woman", "family", "house", "room", "city", "country", "school",
    "student", "teacher", "book", "letter", "car", "job", "place", "problem", "thing", "day", "week",
    "month", "year", "hour", "minute", "way", "idea", "reason", "question", "example", "group", "life",
    "computer", "film", "song", "game", "restaurant", "hotel", "party", "present", "holiday", "trip",
    "ticket", "bus", "train", "bike", "street", "road", "town", "village", "picture", "photo", "camera",
    "animal", "dog", "cat", "bird", "tree", "flower", "garden", "table", "chair", "window", "door", "bed",
    "kitchen", "fridge", "cooker", "machine", "television", "programme", "program", "class", "lesson",
    "course", "exam", "subject", "language", "word", "sentence", "story", "newspaper", "magazine",
    "message", "page", "parent", "brother", "sister", "mother", "father", "son", "daughter", "girl", "boy",
    "baby", "guest", "customer", "member", "player", "team", "company", "office", "product", "price",
    "result", "chance", "advantage", "disadvantage", "opportunity", "activity", "event", "festival",
    "concert", "club", "sport", "museum", "hospital", "doctor", "system", "situation", "solution",
    "decision", "difference", "rule", "night", "morning", "evening", "weekend", "meal", "dish", "cake",
    "apple", "egg", "sandwich", "glass", "bottle", "cup", "box", "bag", "shoe", "dress", "shirt", "hat",
    "key", "dollar", "pound", "mile", "foot", "tooth", "mouse", "knife", "wife", "leaf", "half", "thief",
    "shelf", "potato", "tomato", "hero", "crowd", "building", "lot", "pupil", "shop", "visit", "plan",
    "show", "walk", "journey", "toy", "boat", "ship", "plane", "beach", "church", "mountain", "river",
    "island", "kid", "adult", "colleague", "neighbour", "neighbor", "boss", "manager", "owner", "tourist",
    "visitor", "artist", "singer", "band", "advertisement", "website",
)
IRREGULAR_NOUNS: dict[str, str] = {
    "person": "people", "child": "children", "man": "men", "woman": "women", "foot": "feet",
    "tooth": "teeth", "mouse": "mice", "life": "lives", "knife": "knives", "wife": "wives",
    "leaf": "leaves", "half": "halves", "thief": "thieves", "shelf": "shelves", "potato": "potatoes",
    "tomato": "tomatoes", "hero": "heroes",
}
UNCOUNTABLE = (
    "information", "advice", "furniture", "equipment", "homework", "luggage", "baggage", "knowledge",
    "evidence", "vocabulary", "accommodation", "scenery",
)
# -ing forms that are mostly nouns: not treated as verbs.
ING_NOUNS = ("building", "meeting", "evening", "morning", "wedding", "ending", "painting", "feeling")
ING_NOUNS += ("beginning", "setting", "training", "thing", "something", "nothing", "anything", "everything")

VOWELS = "aeiou"
LETTERS = "abcdefghijklmnopqrstuvwxyz"

# fmt: on


def s3(lemma: str) -> str:
    if lemma in IRREGULAR_S3:
        return IRREGULAR_S3[lemma]
    return plural_regular(lemma)


def plural_regular(word: str) -> str:
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if len(word) > 1 and word.endswith("y") and word[-2] not in VOWELS:
        return word[:-1] + "ies"
    return word + "s"


def ing(lemma: str) -> str:
    if lemma.endswith("ie"):
        return lemma[:-2] + "ying"
    if lemma in DOUBLING:
        return lemma + lemma[-1] + "ing"
    if lemma.endswith("e") and not lemma.endswith(("ee", "ye", "oe")) and lemma != "be":
        return lemma[:-1] + "ing"
    return lemma + "ing"


def past_regular(lemma: str) -> str:
    if lemma.endswith("e"):
        return lemma + "d"
    if len(lemma) > 1 and lemma.endswith("y") and lemma[-2] not in VOWELS:
        return lemma[:-1] + "ied"
    if lemma in DOUBLING:
        return lemma + lemma[-1] + "ed"
    return lemma + "ed"


def verb_forms(lemma: str) -> dict[str, str]:
    """Tag -> form for ``base``, ``s3``, ``past``, ``pp``, ``ing``."""
    past, pp = IRREGULAR_VERBS.get(lemma) or (past_regular(lemma),) * 2
    return {"base": lemma, "s3": s3(lemma), "past": past, "pp": pp, "ing": ing(lemma)}


VERBS: dict[str, dict[str, str]] = {lemma: verb_forms(lemma) for lemma in (*IRREGULAR_VERBS, *REGULAR_VERBS)}
# form -> [(lemma, tag), ...] in table order (deterministic).
VERB_FORMS: dict[str, list[tuple[str, str]]] = {}
for _lemma, _forms in VERBS.items():
    for _tag, _form in _forms.items():
        if _lemma == "be" and _tag in ("s3", "past"):
            continue  # is/was are agreement's business
        if _tag == "ing" and _form in ING_NOUNS:
            continue
        entries = VERB_FORMS.setdefault(_form, [])
        if (_lemma, _tag) not in entries:
            entries.append((_lemma, _tag))

SINGULAR_TO_PLURAL: dict[str, str] = {
    n: IRREGULAR_NOUNS.get(n) or plural_regular(n) for n in dict.fromkeys(NOUNS)
}
PLURAL_TO_SINGULAR: dict[str, str] = {p: s for s, p in SINGULAR_TO_PLURAL.items()}
UNCOUNTABLE_PLURAL: dict[str, str] = {u: u + "s" for u in UNCOUNTABLE}
