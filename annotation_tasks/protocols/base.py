"""The annotation-protocol interface: what one mode of work shows, accepts, writes, analyses and exports.

A protocol is one package (protocols/<name>/: qasem, factscore, validation, ragas) with one class deriving from
AnnotationProtocol, registered by its Unit.Mode in protocols/registry.py. The class declares everything the rest
of the system asks about it: the project steps it serves, the plan kinds it sends, its label levels (labels in
error-first order, display names), its keys and its guide. services/work.py serves units and records submissions
through it and never asks which mode a unit has; services/frames.py and the exporters read its labels through its
LabelLevel specs; the manifest (protocols/manifest.py, GET /api/protocols/) tells the element and the dashboard.
docs/protocols.md says how to add one.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.db.models import Model, QuerySet

from annotation_tasks.models import Assignment, Project, Response, Unit


@dataclass
class Shown:
    """The ids of what one payload showed, recorded on the assignment: a submission may label only these."""

    responses: list[int] = field(default_factory=list)
    spans: list[int] = field(default_factory=list)
    qas: list[int] = field(default_factory=list)
    facts: list[int] = field(default_factory=list)
    passages: dict[int, list[int]] = field(default_factory=dict)
    """Knowledge passages shown as evidence: {fact id: passage ids, best first} (factscore with a knowledge source)."""
    sides: dict[str, bool] = field(default_factory=dict)
    """Per compared aspect, whether its pair was shown swapped (B, A) against the protocol's own order (ragas)."""
    assignment_id: int | None = None
    """Whose payload this is (None: a preview): what a protocol's plan draws per assignment from. Not recorded."""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"responses": self.responses, "spans": self.spans, "qas": self.qas, "facts": self.facts}
        if self.passages:
            out["passages"] = {str(fact): ids for fact, ids in self.passages.items()}  # JSON object keys
        if self.sides:
            out["sides"] = dict(self.sides)
        return out


PLAN_SHOWN_ATTR = "_factcrowd_plan_shown"
"""payload.build puts the payload's Shown on the Unit instance under this name before calling plan (the instance
lives for one request): a plan that draws something per assignment (ragas' sides) reads and records it there."""


class Errors:
    """Submission errors, each naming the JSON path of the offending value ("labels.qas[3].supported")."""

    def __init__(self) -> None:
        self.items: list[dict[str, str]] = []

    def add(self, path: str, message: str) -> None:
        self.items.append({"field": path, "message": message})


@dataclass(frozen=True)
class Submission:
    """What a protocol validates: the unit, its responses in display order, what was shown, the labels sent."""

    unit: Unit
    responses: list[Response]
    shown: Mapping[str, list[int]]
    labels: Mapping[str, Any]


@dataclass(frozen=True)
class Step:
    """A project step a protocol serves (Project.protocol holds step values), as the dashboard offers it."""

    value: str
    label: str


@dataclass(frozen=True)
class Key:
    """A keyboard command of the protocol's sections: `key` pressed gives `command` (a label value or an action)."""

    key: str
    command: str
    help: str


@dataclass(frozen=True)
class Export:
    """An export format (services.exports.FORMATS) written from this protocol's labels, as the dashboard lists it."""

    value: str
    label: str
    help: str


@dataclass(frozen=True, kw_only=True)
class Vocabulary:
    """The labels of one level: what an item of `item_type` (span, qa, fact, unit) may be labelled.

    `labels` are in error-first order: the majority's tie order (analysis.aggregation takes it as the vocabulary;
    an item half of the workers flagged stays flagged) and the order the dashboard lists them in. `display`
    names each label for people.
    """

    name: str
    item_type: str
    labels: tuple[str, ...]
    display: Mapping[str, str] = field(default_factory=dict, hash=False, compare=False)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "item_type": self.item_type, "labels": list(self.labels),
                "display": {label: self.display.get(label, label) for label in self.labels}}


@dataclass(frozen=True, kw_only=True)
class LabelLevel(Vocabulary):
    """One level of the labels frame and of the exporters' votes (span, qa, fact), with its vocabulary.

    A spec, not a reader: services/frames.py (the ORM to pandas bridge) and exporters/base.py run its
    querysets. Label rows are (item id, assignment id, stored value, *extra); `names` turns a boolean value
    into the analysis's label names (true name, false name); without it the stored value is the label.
    """

    model: type[Model]
    item_field: str
    value_field: str
    items: Callable[[Project], QuerySet]
    names: tuple[str, str] | None = None
    extra_fields: tuple[str, ...] = ()

    def label_of(self, value: Any) -> Any:
        if self.names is None:
            return value
        return self.names[0] if value else self.names[1]

    def counted_labels(self, project: Project) -> QuerySet:
        """The level's labels collected in `project` by assignments that count (Assignment.data_q: submitted or
        approved, vouched for by their platform, and not training)."""
        return self.model._default_manager.filter(Assignment.data_q("assignment__"), assignment__unit__project=project)

    def labels_of_items(self, item_ids: list[int]) -> QuerySet:
        """(item id, assignment id, value) of every label of these items, whatever its assignment's status."""
        return self.model._default_manager.filter(**{f"{self.item_field}__in": item_ids}).values_list(
            self.item_field, "assignment_id", self.value_field
        )


class AnnotationProtocol(ABC):
    """One mode of work. Subclasses set `mode` and implement the four steps of a submission's life."""

    mode: ClassVar[str]
    """The Unit.Mode value this protocol serves (the registry key)."""
    title: ClassVar[str] = ""
    """What the dashboard calls it."""
    steps: ClassVar[tuple[Step, ...]] = ()
    """The project steps it serves, in canonical order: a project whose protocol names one is composed in this
    mode (registry.mode_for_steps); the dashboard's protocol form offers them."""
    default_steps: ClassVar[tuple[str, ...]] = ()
    """The steps a project gets when the protocol is chosen (empty: all of `steps`)."""
    plan_kinds: ClassVar[tuple[str, ...]] = ()
    """Every section kind its plan may send; the element has one module per kind (the contract suites check)."""
    label_levels: ClassVar[tuple[LabelLevel, ...]] = ()
    """Levels of the labels frame its labels fill, in frame order."""
    review_levels: ClassVar[tuple[Vocabulary, ...]] = ()
    """Levels reviewed (and maybe adjudicated) that are not in the labels frame: pairwise scores, the expert's
    QA validity."""
    keys: ClassVar[tuple[Key, ...]] = ()
    """Its sections' keyboard commands (labels and actions), shown in the element's help."""
    guide: ClassVar[str] = ""
    """The built-in guide shown under the project's instructions (markdown)."""
    exports: ClassVar[tuple[Export, ...]] = ()
    """The export formats of its own (the QASem release, the FActScore schema ...)."""
    review: ClassVar[str] = ""
    """Its review companion, "package.module:Class" (protocols/review.py); empty: GenericReview."""
    expert_step: ClassVar[bool] = False
    """An expert pre-step: one assignment per unit by default, and its units never carry gold."""
    default_mode: ClassVar[bool] = False
    """The mode of a project whose steps no crowd protocol claims (the QASem two-step)."""

    @classmethod
    def vocabularies(cls) -> tuple[Vocabulary, ...]:
        """Every level it labels: the frame's, then the review-only ones."""
        return (*cls.label_levels, *cls.review_levels)

    @abstractmethod
    def response_items(self, response: Response, shown: Shown) -> dict[str, list[dict]]:
        """The items of one response the worker judges (any of predicates, qas, spans, facts), as plain dicts
        with explicit fields; record their ids in `shown`. Nothing else about a response reaches the browser."""

    def responses_items(self, responses: list[Response], shown: dict[int, Shown]) -> dict[int, dict[str, list[dict]]]:
        """response_items of each of a unit's responses ({response id: items}, ids recorded in shown[id]); a
        protocol on the annotator's hot path reads them for all responses at once (qasem)."""
        return {r.pk: self.response_items(r, shown[r.pk]) for r in responses}

    @abstractmethod
    def plan(self, unit: Unit, responses: list[dict]) -> list[dict]:
        """The sections the element renders, in order: [{"kind": <Protocol step>, ...}] (docs/annotator-api.md).
        `responses` are the payload's responses (with the items response_items gave)."""

    @abstractmethod
    def validate(self, submission: Submission, errors: Errors) -> Any:
        """Check every label against what was shown; add each problem to `errors` (JSON path, message).
        Returns the clean labels write() takes; never writes."""

    @abstractmethod
    def write(self, assignment: Assignment, submission: Submission, clean: Any) -> None:
        """Record the clean labels of a valid submission (inside the submit transaction). Labels are the
        assignment's own and count only once its platform vouches for it (Assignment.counted_q); anything a
        submission changes beyond them (shared state, e.g. QA validity) waits for that: see on_verified."""

    def on_verified(self, assignment: Assignment) -> None:
        """Apply what a submission changes beyond its own labels, held back by `write` while the platform had not
        vouched for the work (verification not trusted): services.verification.verify, the only way work becomes
        verified (per-unit sync and a batch study's places alike), calls it once per assignment, in the transaction
        that verifies it; approving is not verifying. Nothing by default (a protocol whose write only stores labels
        has nothing held back)."""
        return None

    def assignments_wanted(self, project: Project) -> int:
        """How many workers judge each unit unless the caller says."""
        return 1 if self.expert_step else project.annotations_per_item
