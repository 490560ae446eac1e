"""One labelled reply of the judge corpus (one JSONL line), shared by the corpus's generators."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

#: The six MDEP-PR level keys, in the corpus's order.
LEVEL_KEYS: tuple[str, ...] = ("C_Prog", "A_Prog", "P_Prog", "C_Neg", "A_Neg", "P_Neg")


@dataclass
class Record:
    """One labelled reply (one JSONL line). ``levels`` keys are :data:`LEVEL_KEYS`."""

    id: str
    context: list[str]
    reply: str
    levels: dict[str, int]
    evidence: dict[str, str]
    reasons: dict[str, str]
    reason: str
    family: str
    source: str
    case_id: str
    stance: str
    split: str = "train"
    #: How much the row counts in training (see DATASHEET.md, "Weights").
    weight: float = 1.0
    #: The reply's labelled parts, ``{"text": verbatim part, "levels": {key: non-zero level}}``
    #: (forum replies of two or more parts; empty otherwise, and then not written).
    parts: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        """The JSONL object of this record (``parts`` only when there are any)."""
        row = asdict(self)
        if not row["parts"]:
            del row["parts"]
        return row


__all__ = ["LEVEL_KEYS", "Record"]
