"""MTurk request bodies that are easy to get subtly wrong: question XML and qualification requirements."""
from __future__ import annotations

from xml.etree import ElementTree
from xml.sax.saxutils import escape

EXTERNAL_QUESTION_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd"
HTML_QUESTION_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2011-11-11/HTMLQuestion.xsd"
ANSWERS_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd"
MAX_QUESTION_BYTES = 64 * 1024

# System qualification type ids (documented by MTurk).
PERCENT_APPROVED = "000000000000000000L0"
NUMBER_APPROVED = "00000000000000000040"
LOCALE = "00000000000000000071"
ADULT = "00000000000000000060"


def _check_size(xml: str) -> str:
    if len(xml.encode()) > MAX_QUESTION_BYTES:
        raise ValueError(f"question XML is {len(xml.encode())} bytes; MTurk accepts at most {MAX_QUESTION_BYTES}")
    return xml


def external_question(url: str, frame_height: int = 0) -> str:
    """ExternalQuestion XML; MTurk only frames HTTPS pages, and `&` must be written `&amp;` in the XML."""
    if not url.startswith("https://"):
        raise ValueError(f"MTurk ExternalQuestion needs an HTTPS URL, got {url!r} (set PUBLIC_BASE_URL)")
    return _check_size(
        f'<ExternalQuestion xmlns="{EXTERNAL_QUESTION_NS}">'
        f"<ExternalURL>{escape(url)}</ExternalURL>"
        f"<FrameHeight>{int(frame_height)}</FrameHeight>"
        "</ExternalQuestion>"
    )


def html_question(html: str, frame_height: int = 0) -> str:
    """HTMLQuestion XML embedding a whole page (e.g. the annotator element); CDATA keeps the HTML verbatim."""
    if "]]>" in html:
        raise ValueError("HTML for an HTMLQuestion must not contain ']]>'")
    return _check_size(
        f'<HTMLQuestion xmlns="{HTML_QUESTION_NS}">'
        f"<HTMLContent><![CDATA[{html}]]></HTMLContent>"
        f"<FrameHeight>{int(frame_height)}</FrameHeight>"
        "</HTMLQuestion>"
    )


def qualification_requirements(
    *,
    min_approval_rate: int | None = None,
    min_approved_hits: int | None = None,
    locales: list[str] | None = None,
    custom: dict[str, int] | None = None,
    actions_guarded: str = "DiscoverPreviewAndAccept",
) -> list[dict]:
    """QualificationRequirements for CreateHITType.

    `custom` maps our own qualification type ids to the minimum value (controlled crowdsourcing: only workers we
    qualified after training see the work). Locales are "US" or "US-CA" (country-subdivision).
    """
    reqs: list[dict] = []
    if min_approval_rate is not None:
        reqs.append(
            {
                "QualificationTypeId": PERCENT_APPROVED,
                "Comparator": "GreaterThanOrEqualTo",
                "IntegerValues": [int(min_approval_rate)],
                "ActionsGuarded": actions_guarded,
            }
        )
    if min_approved_hits is not None:
        reqs.append(
            {
                "QualificationTypeId": NUMBER_APPROVED,
                "Comparator": "GreaterThanOrEqualTo",
                "IntegerValues": [int(min_approved_hits)],
                "ActionsGuarded": actions_guarded,
            }
        )
    if locales:
        values = []
        for loc in locales:
            country, _, subdivision = loc.partition("-")
            values.append({"Country": country, **({"Subdivision": subdivision} if subdivision else {})})
        reqs.append(
            {
                "QualificationTypeId": LOCALE,
                "Comparator": "In",
                "LocaleValues": values,
                "ActionsGuarded": actions_guarded,
            }
        )
    for type_id, minimum in (custom or {}).items():
        reqs.append(
            {
                "QualificationTypeId": type_id,
                "Comparator": "GreaterThanOrEqualTo",
                "IntegerValues": [int(minimum)],
                "ActionsGuarded": actions_guarded,
            }
        )
    return reqs


def parse_answer(xml: str | None) -> dict[str, str]:
    """QuestionFormAnswers XML (what MTurk reports for externalSubmit fields) -> {field: value}."""
    if not xml:
        return {}
    root = ElementTree.fromstring(xml)
    out: dict[str, str] = {}
    for answer in root.iter():
        if answer.tag.rsplit("}", 1)[-1] != "Answer":
            continue
        ident = text = ""
        for child in answer:
            tag = child.tag.rsplit("}", 1)[-1]
            if tag == "QuestionIdentifier":
                ident = child.text or ""
            elif tag in ("FreeText", "SelectionIdentifier"):
                text = child.text or ""
        if ident:
            out[ident] = text
    return out


def answer_xml(fields: dict[str, str]) -> str:
    """The inverse of parse_answer: how MTurk encodes externalSubmit's form fields (used by fakes and tests)."""
    parts = "".join(
        f"<Answer><QuestionIdentifier>{escape(k)}</QuestionIdentifier><FreeText>{escape(v)}</FreeText></Answer>"
        for k, v in fields.items()
    )
    return f'<?xml version="1.0" encoding="UTF-8"?><QuestionFormAnswers xmlns="{ANSWERS_NS}">{parts}</QuestionFormAnswers>'
