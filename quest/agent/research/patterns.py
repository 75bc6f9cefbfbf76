"""The patterns the research readers share: words (a candidate's place in a sentence is counted
in them), years, and the article a name or value opens with."""

from __future__ import annotations

import re

WORD = re.compile(r"[^\W_][\w'\u2019-]*")
# A word whose apostrophe can only be the straight one (U+0027), not the curly U+2019.
STRAIGHT_WORD = re.compile(r"[^\W_][\w'-]*")
YEAR_FIGURE = re.compile(
    r"(?:(?<![\w.,])(1\d{3}|20\d{2})|(?<=AD )(\d{2,4})|(?<=in )(\d{3})"
    r"|(\d{2,4})(?= (?:AD|BC|CE)\b))(?![\w%]|,\d|\.\d|\s*(?:km|m|ft|metres|people)\b)"
)
LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
