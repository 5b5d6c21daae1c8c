"""Embedded atomic facts: FActScore-style facts from spaCy's dependency parse, no model.

Each clause (a verb or copula with its subject, relative clauses, participles, conjoined predicates) becomes short
sentences "subject + verb group + one argument"; coordinated arguments and lists ("films such as A and B") are
split into one fact per item, appositives and parenthetical dates ("(born 20 March 1977)") become statements of
their own ("X is Y.", "X was born on 20 March 1977."), and a subject pronoun is replaced by the name the response
uses for its entity. Facts are built from the sentence's own tokens; the only words added are the copula, a
determiner for a split noun, 'on'/'in' before a birth date, and the finite form of a participle ("appearing" ->
"appeared"). Citation brackets ("[1]") are removed whole before parsing. A sentence with no usable clause is kept
whole as one fact, so no claim is silently dropped.
"""
from __future__ import annotations

import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from parser import lexicon

CITATION = re.compile(r"\s*\[(?:\d+(?:\s*[,;–-]\s*\d+)*|citation needed|note \d+|[a-z])\]", re.IGNORECASE)
PARENS = re.compile(r"\s*\(([^()]*)\)")
MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass"})
CORE_DEPS = frozenset({"dobj", "attr", "acomp", "oprd", "dative", "xcomp", "ccomp"})
MOD_DEPS = frozenset({"prep", "agent", "npadvmod", "advmod", "tmod"})
# Clause adverbs that add no claim of their own (FActScore's human facts drop them).
DROP_ADVERBS = frozenset(
    "also then later ultimately eventually still further subsequently additionally furthermore moreover however "
    "sadly unfortunately tragically notably currently now too even thus therefore finally again already "
    "initially originally soon recently together primarily mainly".split()
)
# Prepositional openers whose content is background, not a claim the sentence makes about its subject.
DROP_PREPS = frozenset({"aside", "besides", "despite", "addition", "apart", "alongside", "throughout"})
PARTICLE_ADVERBS = frozenset("away up down out off back on over around".split())  # 'passed away'
QUANTITY_NOUNS = frozenset("range variety number lot host array series couple handful number majority dozens".split())
LIST_MARKERS = frozenset({"including", "like", "especially", "notably", "particularly"})
RELATIVE_WORDS = frozenset({"who", "whom", "which", "that", "whose", "where", "when"})
SUBJECT_PRONOUNS = {"he": False, "she": False, "him": False, "her": True, "his": True, "hers": True}
PRESENT_PARTICIPLE_STATES = frozenset({"known", "called", "named", "titled", "located", "based", "considered", "regarded"})


BE_FORMS = frozenset({"is", "are", "was", "were", "be", "been", "being", "am", "'s", "'re"})


def pos(token: Any) -> str:
    """Coarse part of speech from the fine tag (the shared pipeline runs without spaCy's attribute ruler)."""
    tag = token.tag_
    if tag.startswith("VB") or tag == "MD":
        return "AUX" if token.dep_ in {"aux", "auxpass"} or token.text.lower() in BE_FORMS else "VERB"
    if tag in {"NN", "NNS"}:
        return "NOUN"
    if tag.startswith("NNP"):
        return "PROPN"
    if tag in {"PRP", "WP"}:
        return "PRON"
    if tag == "CD":
        return "NUM"
    if tag.startswith("JJ"):
        return "ADJ"
    return tag


@dataclass(frozen=True)
class Entity:
    """Who the response is about: its full name and the shorter name the response itself uses."""

    full: str
    short: str


# ------------------------------------------------------------------------------------------------ text helpers


def clean_sentence(text: str) -> str:
    """The sentence without citation brackets (removed whole: never '[1.') and with spaces normalised."""
    text = CITATION.sub("", text)
    return re.sub(r"\s+", " ", text).strip()


def singular(noun: str) -> str:
    """A plural common noun's singular by the regular rules (films -> film, series stays)."""
    low = noun.lower()
    if low.endswith(("ss", "us", "is", "series", "news", "species")) or not low.endswith("s"):
        return noun
    if low.endswith("ies") and len(low) > 4:
        return noun[:-3] + "y"
    if low.endswith(("ches", "shes", "sses", "xes", "zzes")):
        return noun[:-2]
    return noun[:-1]


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" and not word.lower().startswith(("uni", "use", "eu", "one")) else "a"


def finish(text: str) -> str:
    """One clean sentence: spacing, no dangling commas or conjunctions, balanced quotes, capital, final stop."""
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,.;:!?%])", r"\1", text)
    text = re.sub(r"\s+('s\b|'\s|n't\b)", r"\1", text)
    text = re.sub(r"([(\[])\s+", r"\1", text)
    text = re.sub(r"\s+([)\]])", r"\1", text)
    text = re.sub(r"(?:[,;:\-–—]\s*|\b(?:and|or|but)\s*)+$", "", text).strip()
    text = re.sub(r"^(?:[,;:\-–—]\s*|(?:and|or|but)\b\s*)+", "", text, flags=re.IGNORECASE).strip()
    for quote in ('"', "“", "”"):
        if text.count(quote) % 2 if quote == '"' else False:
            text = text.replace(quote, "")
    if text.count("“") != text.count("”"):
        text = text.replace("“", "").replace("”", "")
    if text.count("(") != text.count(")"):
        text = text.replace("(", "").replace(")", "")
    text = text.rstrip(" .")
    if not text:
        return ""
    return text[0].upper() + text[1:] + ("" if text.endswith(("!", "?")) else ".")


# ------------------------------------------------------------------------------------------------ the splitter


class EmbeddedFactSplitter:
    """Facts per sentence from the dependency parse (spaCy's pipeline shared with the embedded parser)."""

    def __init__(self, nlp: Any = None, resolve_pronouns: bool = True, max_facts: int = 12):
        self._nlp = nlp
        self.resolve_pronouns = resolve_pronouns
        self.max_facts = max_facts

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            from parser.embedded import load_spacy

            self._nlp = load_spacy()
        return self._nlp

    def split_sentences(self, sentences: Sequence[str], wanted: Iterable[int] | None = None) -> list[list[str]]:
        """Facts of each sentence of one response (its other sentences give the entity pronouns refer to)."""
        keep = set(range(len(sentences))) if wanted is None else set(wanted)
        cleaned = [clean_sentence(s) for s in sentences]
        texts, asides = [], []
        for text in cleaned:
            stripped, found = _take_parentheses(text)
            texts.append(stripped)
            asides.append(found)
        docs = [merge_quoted(doc) for doc in self.nlp.pipe(texts)]
        entity = response_entity(docs) if self.resolve_pronouns else None
        out: list[Any] = []
        for index, (doc, found, text) in enumerate(zip(docs, asides, cleaned, strict=True)):
            if index not in keep or not text:
                out.append([])
                continue
            facts = SentenceFacts(doc, entity).facts(found)
            whole = finish(text) if re.search(r"\w", text) else ""
            out.append(facts[: self.max_facts] or ([whole] if whole else []))
        return out


QUOTE_PAIRS = {'"': '"', "“": "”"}


def merge_quoted(doc: Any) -> Any:
    """A quoted title ("Sins and Salvation,") becomes one proper-noun token and a hyphenated word one token, so
    nothing splits or cuts them ('co-founded' never becomes 'founded')."""
    spans = []
    i = 0
    while i < len(doc):
        close = QUOTE_PAIRS.get(doc[i].text)
        if close:
            end = next((j for j in range(i + 1, min(len(doc), i + 16)) if doc[j].text == close), None)
            if end is not None and end > i + 1:
                spans.append(doc[i : end + 1])
                i = end + 1
                continue
        i += 1
    taken = {t.i for span in spans for t in span}
    words = []
    i = 0
    while i < len(doc):
        j = i
        while j + 2 < len(doc) and doc[j + 1].text in {"-", "–"} and not doc[j].whitespace_ and not doc[j + 1].whitespace_:
            j += 2  # 'co-founded', 'Dong-won', 'pound-for-pound': one word
        if j > i and not any(k in taken for k in range(i, j + 1)):
            words.append(doc[i : j + 1])
        i = j + 1
    if spans or words:
        with doc.retokenize() as retokenizer:
            for span in spans:
                retokenizer.merge(span, attrs={"TAG": "NNP"})
            for span in words:
                retokenizer.merge(span, attrs={"TAG": span.root.tag_})
    return doc


def _take_parentheses(text: str) -> tuple[str, list[tuple[int, str]]]:
    """The text without parentheses, and each one's content with the character where it stood."""
    found: list[tuple[int, str]] = []
    parts: list[str] = []
    last = 0
    for match in PARENS.finditer(text):
        parts.append(text[last : match.start()])
        found.append((sum(len(p) for p in parts), match.group(1).strip()))
        last = match.end()
    parts.append(text[last:])
    return re.sub(r"\s+", " ", "".join(parts)).strip(), found


def _name_tokens(token: Any) -> list[Any]:
    """A proper name: the token with its compound / flat proper-noun modifiers."""
    toks = [t for t in token.subtree if t.i <= token.i and (t is token or (t.dep_ in {"compound", "flat"} and t.tag_.startswith("NNP")))]
    start = token.i
    for t in sorted(toks, key=lambda t: -t.i):
        if t.i == start - 1 or t is token:
            start = t.i
    return [t for t in token.doc[start : token.i + 1]]


def _plain(word: str) -> str:
    """A word without accents, lowercased: 'Martínez' and 'Martinez' name the same person."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c)).lower()


def response_entity(docs: Sequence[Any]) -> Entity | None:
    """The first proper-name subject of the response, and the part of it the text uses alone most often."""
    for doc in docs[:2]:
        for token in doc:
            if token.dep_ in SUBJECT_DEPS and token.tag_.startswith("NNP") and token.head.dep_ == "ROOT":
                name = _name_tokens(token)
                full = "".join(t.text + t.whitespace_ for t in name).strip()
                parts = [t.text for t in name if t.text not in {"-", "."}]
                if len(parts) == 1:
                    return Entity(full, full)
                uses: Counter = Counter()
                plain = {_plain(p) for p in parts}
                for other in docs:
                    for t in other:
                        if _plain(t.text) in plain and t.tag_.startswith("NNP"):
                            left = _plain(other[t.i - 1].text) if t.i else ""
                            right = _plain(other[t.i + 1].text) if t.i + 1 < len(other) else ""
                            if left not in plain and right not in plain:
                                uses[t.text] += 1
                short = uses.most_common(1)[0][0] if uses else full
                return Entity(full, short)
    return None


class SentenceFacts:
    """The facts of one parsed sentence."""

    def __init__(self, doc: Any, entity: Entity | None):
        self.doc = doc
        self.entity = entity
        self.past = any(t.tag_ == "VBD" for t in doc if t.dep_ in {"ROOT", "aux", "auxpass"} or t.head.dep_ == "ROOT")
        self.out: list[str] = []
        self.extra_cut: set[int] = set()  # prepositions lifted out of a phrase to be facts of their own
        self.as_role: Any = None
        self.members: list[Any] = []

    # ------------------------------------------------------------------ output

    def add(self, *pieces: str) -> None:
        fact = finish(" ".join(p for p in pieces if p))
        if (
            fact
            and len(fact.split()) >= 2
            and fact not in self.out
            and (fact[0].isalnum() or fact[:1] in QUOTE_PAIRS)
        ) and not re.search(r"\s\.|\.\s+(?:is|was)\b|\s,", fact):  # no piece of a broken phrase
            self.out.append(fact)

    def facts(self, asides: Sequence[tuple[int, str]] = ()) -> list[str]:
        for position, content in asides:
            self.aside(position, content)
        for token in self.doc:
            if self.is_clause(token):
                self.clause(token)
        for token in self.doc:
            if token.dep_ == "appos":
                self.appositive(token)
        return self.out

    # ------------------------------------------------------------------ phrases

    def render(self, tokens: Iterable[Any], replace: dict[int, str] | None = None) -> str:
        """Tokens in sentence order with their own spacing (a token's text swapped where `replace` says); a comma
        stays only between two kept tokens."""
        tokens = list(tokens)
        kept = {t.i for t in tokens}
        toks = sorted(
            (t for t in set(tokens) if t.text not in {",", ";"} or (t.i - 1 in kept and t.i + 1 in kept)),
            key=lambda t: t.i,
        )
        out = []
        for k, t in enumerate(toks):
            out.append(replace.get(t.i, t.text) if replace else t.text)
            if k + 1 < len(toks):
                out.append(t.whitespace_ if toks[k + 1].i == t.i + 1 else " ")
        return "".join(out).strip()

    def cut_children(self, token: Any) -> set[int]:
        """Children whose subtrees are facts of their own, never part of a phrase."""
        cut = {c.i for c in token.children if c.i in self.extra_cut}
        for child in token.children:
            if child.dep_ in {"relcl", "advcl", "parataxis", "conj", "cc", "preconj", "mark", "appos"} and not (
                child.dep_ == "appos" and child.tag_ == "CD"
            ) and not (child.dep_ in {"conj", "cc"} and self.is_name_pair(token)):
                cut.add(child.i)
            elif child.dep_ == "acl" and child.text.lower() not in PRESENT_PARTICIPLE_STATES | {"to"}:
                cut.add(child.i)
            elif child.dep_ in {"npadvmod", "appos"} and child.tag_.startswith("NNP") and token.tag_.startswith("NNP") \
                    and token.dep_ in {"pobj", "conj", "appos"}:
                cut.add(child.i)  # the rest of a place chain
            elif child.dep_ == "prep" and (child.text.lower() in LIST_MARKERS or self.is_such_as(child)):
                cut.add(child.i)
            elif child.dep_ == "punct" and child.text in {":", "—", "–"}:
                cut.add(child.i)
        return cut

    def phrase(self, token: Any, extra_cut: Iterable[int] = ()) -> list[Any]:
        """The token's subtree without clauses, appositives, conjuncts and lists under it (at any depth)."""
        blocked = set(extra_cut)
        keep = []
        stack = [token]
        while stack:
            t = stack.pop()
            keep.append(t)
            cut = self.cut_children(t) | blocked
            stack.extend(c for c in t.children if c.i not in cut)
        return keep

    def conjuncts(self, token: Any) -> list[Any]:
        """The token and the tokens coordinated with it (a, b and c; 'a journalist, author and academic', which
        the parser reads as an appositive list)."""
        if self.is_name_pair(token):
            return [token]
        if self.is_place_chain(token):
            return [token]
        out = [token]
        stack = [
            c for c in token.children
            if (c.dep_ == "conj" and not (c.tag_.startswith("VB") and not token.tag_.startswith("VB"))) or self.is_list_appos(c)
        ]
        while stack:
            c = stack.pop(0)
            out.append(c)
            stack.extend(x for x in c.children if x.dep_ == "conj" or (x.dep_ == "appos" and x.tag_ == c.tag_ and self.is_list_appos(c)))
        return out

    def is_place_chain(self, token: Any) -> bool:
        """'in Kawasaki, Kanagawa, Japan': proper nouns chained by commas with no 'and' are one place, each in the
        next; the chain's facts ('Kawasaki is in Kanagawa.') are added here."""
        if not token.tag_.startswith("NNP") or token.dep_ not in {"pobj", "appos", "conj"}:
            return False
        chain = [token]
        while True:
            nxt = [c for c in chain[-1].children if c.dep_ in {"conj", "appos", "npadvmod"} and c.tag_.startswith("NNP")]
            if not nxt or any(c.dep_ in {"cc", "preconj"} for c in chain[-1].children):
                break
            chain.append(nxt[0])
        if len(chain) < 2 or token.dep_ != "pobj" or token.head.text.lower() not in {"in", "from", "at", "near", "of"}:
            return False
        if any(t.dep_ in {"cc", "preconj"} for t in token.subtree):
            return False  # 'in Spain, Italy and France': a list
        for inner, outer in itertools.pairwise(chain):
            self.add(self.render(_name_tokens(inner)), "is in", self.render(_name_tokens(outer)))
        return True

    def is_list_appos(self, token: Any) -> bool:
        """An appositive that is really the next item of a list: it has its own 'and' conjunct."""
        if token.dep_ != "appos" or token.tag_ != token.head.tag_ or not token.tag_.startswith("NN"):
            return False
        chain = [token]
        while True:  # 'a dancer, model, television presenter and actress': appositives chained up to an 'and'
            nxt = [c for c in chain[-1].children if c.dep_ in {"appos", "conj"} and c.tag_ == token.tag_]
            if any(c.dep_ == "cc" for c in chain[-1].children):
                return True
            if not nxt or len(chain) > 12:
                return False
            chain.append(nxt[0])

    def is_name_pair(self, token: Any) -> bool:
        """'The Globe and Mail', 'Simon and Garfunkel': a name, not two things (a bare proper noun after 'and')."""
        conj = [c for c in token.children if c.dep_ == "conj"]
        return (
            len(conj) == 1
            and token.tag_.startswith("NNP")
            and conj[0].tag_.startswith("NNP")
            and not any(c.dep_ not in {"cc", "punct"} for c in conj[0].children)
            and any(c.dep_ == "det" for c in token.children)
        )

    def is_such_as(self, prep: Any) -> bool:
        """'films such as A', 'such classic films as A'."""
        return prep.text.lower() == "as" and (
            any(c.text.lower() == "such" for c in prep.children)
            or any(c.text.lower() == "such" and c.i < prep.head.i for c in prep.head.children)
        )

    def variants(self, token: Any) -> list[str]:
        """Renderings of a noun phrase (or any argument), one per coordinated item and per listed member."""
        items = self.conjuncts(token) if pos(token) in {"NOUN", "PROPN", "NUM", "ADJ", "PRON"} else [token]
        shared = [c for c in token.children if c.dep_ in {"det", "amod", "nummod", "poss", "predet"} and c.i < token.i]
        out: list[str] = []
        for k, item in enumerate(items):
            toks = self.phrase(item)
            text = self.render(toks)
            if (
                k > 0
                and shared
                and item.tag_ in {"NN", "NNS"}
                and not any(c.dep_ in {"det", "poss", "nummod", "amod"} for c in item.children)
            ):
                # 'several Spanish films and TV shows': the second item shares the first one's modifiers
                lead = [t for c in shared for t in c.subtree]
                det = next((c for c in shared if c.dep_ == "det"), None)
                if det is not None and det.text.lower() in {"a", "an"}:
                    body = self.render([t for t in lead if t is not det] + toks)
                    text = f"{article(body)} {body}"
                else:
                    text = self.render(lead + toks)
            out.extend(self.nested_variants(item, toks, text))
            owner, members = self.list_members(toks)
            if members:
                out.extend(self.substitute(toks, owner, m) for m in members)
                self.category_facts(owner, self.phrase(owner), members)
        return [v for v in dict.fromkeys(out) if v]

    def nested_variants(self, item: Any, toks: list[Any], text: str) -> list[str]:
        """A phrase with a coordination inside gives one rendering per inner item: 'contributions to literature and
        television', 'social, political and economic issues'."""
        for t in sorted(toks, key=lambda t: t.i):
            if t is item or t.dep_ not in {"pobj", "amod", "compound", "nmod", "dobj"}:
                continue
            inner = self.conjuncts(t)
            if len(inner) < 2:
                continue
            own = {x.i for x in t.subtree}
            outside = [x for x in toks if x.i not in own]
            out = []
            for conj in inner:
                if conj is not t and self.is_title_sibling(conj):
                    out.append(self.render(self.phrase(conj)))  # 'The Adventures of Robin Hood, The Sea Hawk'
                else:
                    out.append(self.render(outside + self.phrase(conj)))
            return out
        return [text]

    def is_title_sibling(self, conj: Any) -> bool:
        """A coordinated title the parse hung inside an of-phrase: it has its own article and a capital."""
        first = conj.head
        while first.dep_ == "conj":
            first = first.head
        if not (first.dep_ == "pobj" and first.head.text.lower() == "of" and conj.tag_.startswith("NNP")):
            return False
        chain = self.conjuncts(first)[1:]
        return any(c.tag_.startswith("NNP") and any(d.dep_ == "det" for d in c.children) for c in chain)

    def substitute(self, toks: list[Any], owner: Any, member: str) -> str:
        """The phrase with a listing noun replaced by one member: 'work for several outlets' -> 'work for The
        Star'; a quantity head goes too ('a range of topics' -> 'politics')."""
        while owner.dep_ == "pobj" and owner.head.text.lower() == "of" and owner.head.head.text.lower() in QUANTITY_NOUNS:
            owner = owner.head.head
        own = {t.i for t in owner.subtree}
        before = self.render([t for t in toks if t.i < owner.i and t.i not in own])
        after = self.render([t for t in toks if t.i > owner.i and t.i not in own])
        return " ".join(p for p in (before, member, after) if p)

    def list_members(self, toks: Iterable[Any]) -> tuple[Any, list[str]]:
        """'films such as A and B', 'a range of topics, including A and B': the listing noun and the members."""
        for noun in sorted(toks, key=lambda t: t.i):
            for child in noun.children:
                if child.dep_ == "prep" and (child.text.lower() in LIST_MARKERS or self.is_such_as(child)):
                    objs = [c for c in child.children if c.dep_ in {"pobj", "dobj"}]
                    if objs:
                        members = [self.render(self.phrase(m)) for m in self.conjuncts(objs[0])]
                        members += [
                            self.render(self.phrase(c)) for t in objs[0].subtree if t.dep_ == "pobj" and t is not objs[0]
                            for c in self.conjuncts(t)[1:] if self.is_title_sibling(c)
                        ]
                        return noun, members
        return None, []

    def category_facts(self, noun: Any, toks: list[Any], members: list[str]) -> None:
        """'films such as A' -> 'A is a film.' (only for a plural category noun)."""
        if noun.tag_ != "NNS":
            return
        mods = [t for t in toks if t.i < noun.i and t.dep_ in {"amod", "compound"} and t.text.lower() not in {"several", "many", "various", "numerous", "other", "some", "multiple", "such"}]
        head = self.render(mods) + " " + singular(noun.text) if mods else singular(noun.text)
        head = head.strip()
        for member in members:
            self.add(member, "is" if not self.past else "was", article(head), head)

    # ------------------------------------------------------------------ subjects

    def subject_text(self, token: Any) -> str:
        """A subject phrase with a pronoun replaced by the entity's name."""
        if self.entity and token.tag_ == "PRP" and token.text.lower() in SUBJECT_PRONOUNS:
            return self.entity.short
        toks = self.phrase(token)
        appos = [c for c in token.children if c.dep_ == "appos" and c.tag_.startswith("NNP") and token.tag_.startswith("NN") and not token.tag_.startswith("NNP")]
        if appos:
            return self.render(self.phrase(appos[0]))
        replace = {
            t.i: self.entity.short + "'s"
            for t in toks
            if self.entity and t.tag_ == "PRP$" and t.text.lower() in {"his", "her"} and t.head is token
        }
        return self.render(toks, replace)

    def clause_subject(self, verb: Any) -> str | None:
        """Who the predicate is about: its own subject, a conjoined predicate's, a relative clause's noun."""
        subject = next((c for c in verb.children if c.dep_ in SUBJECT_DEPS), None)
        if subject is not None and subject.text.lower() not in RELATIVE_WORDS:
            return self.subject_text(subject)
        if verb.dep_ in {"relcl", "acl"} or subject is not None:
            if verb.head.tag_ == "CD" or verb.head.text.lower() in MONTHS or re.fullmatch(r"\d{4}s?", verb.head.text):
                return None  # '..., in 1963, which reached number one': the relative does not mean the year
            return self.noun_subject(verb.head)
        if verb.dep_ in {"conj", "advcl", "xcomp", "acomp"} and verb.head is not verb:
            return self.clause_subject(verb.head)
        if verb.dep_ == "pcomp" and verb.head.dep_ == "prep":
            return self.clause_subject(verb.head.head)
        return None

    def noun_subject(self, noun: Any) -> str | None:
        """The noun a relative clause or participle modifies; for 'X is a band formed in 1969', X."""
        if noun.dep_ == "attr" and pos(noun.head) in {"AUX", "VERB"}:
            return self.clause_subject(noun.head)
        if noun.dep_ == "conj" and noun.head.dep_ == "attr":
            return self.noun_subject(noun.head)
        if pos(noun) not in {"NOUN", "PROPN", "PRON", "NUM"}:
            return None
        return self.subject_text(noun)

    # ------------------------------------------------------------------ clauses

    def is_clause(self, token: Any) -> bool:
        if token.dep_ in {"aux", "auxpass", "amod", "compound"}:
            return False
        if pos(token) == "AUX":
            return token.dep_ in {"ROOT", "conj", "relcl", "ccomp", "advcl"} and any(
                c.dep_ in {"attr", "acomp", "prep", "oprd"} for c in token.children
            )
        if pos(token) != "VERB":
            return False
        if token.dep_ in {"ROOT", "conj", "relcl", "ccomp", "parataxis"}:
            return token.dep_ != "conj" or pos(token.head) in {"VERB", "AUX"} or token.tag_ in {"VBD", "VBZ", "VBP"}
        if token.dep_ == "acl":
            return token.tag_ == "VBN" and token.text.lower() not in PRESENT_PARTICIPLE_STATES
        if token.dep_ == "advcl":
            return not _infinitive(token)
        return token.dep_ == "pcomp" and token.tag_ == "VBG" and token.head.text.lower() in {"before", "after", "while", "since", "by"}

    def verb_group(self, verb: Any) -> str:
        """Auxiliaries, negation and kept adverbs before the verb, the verb, its particle; participles made
        finite ('appearing' -> 'appeared', 'formed' -> 'was formed')."""
        left = [
            c for c in verb.children
            if c.i < verb.i and (c.dep_ in {"aux", "auxpass", "neg"} or (c.dep_ == "advmod" and c.text.lower() not in DROP_ADVERBS and c.i == verb.i - 1))
        ]
        particle = [
            c for c in verb.children
            if c.dep_ == "prt" or (c.dep_ == "advmod" and c.i == verb.i + 1 and c.text.lower() in PARTICLE_ADVERBS)
        ]
        has_aux = any(c.dep_ in {"aux", "auxpass"} for c in left)
        words = [c.text for c in sorted(left, key=lambda t: t.i)]
        if not has_aux and verb.dep_ == "conj" and verb.tag_ in {"VBN", "VBG"}:
            inherited = [c.text for c in verb.head.children if c.dep_ in {"aux", "auxpass"} and c.i < verb.head.i]
            words = inherited + words
            has_aux = bool(inherited)
        text = verb.text
        if not has_aux and verb.dep_ in {"acl", "advcl", "pcomp", "conj"}:
            if verb.tag_ == "VBN":
                be = "is" if verb.text.lower() in PRESENT_PARTICIPLE_STATES else ("were" if False else "was")
                words = [be] + words
            elif verb.tag_ == "VBG":
                forms = lexicon.verb_forms(lexicon.verb_stem(verb.text, "VBG"))
                text = forms.past if self.past or verb.dep_ != "conj" else forms.present3
        return " ".join(words + [text] + [p.text for p in particle])

    def arguments(self, verb: Any) -> tuple[list[Any], list[Any]]:
        cores: list[Any] = []
        mods: list[Any] = []
        for child in verb.children:
            dep, low = child.dep_, child.text.lower()
            if dep in CORE_DEPS or (dep == "advcl" and _infinitive(child) and child.i > verb.i):
                cores.append(child)
            elif dep == "agent":
                (cores if verb.tag_ == "VBN" else mods).append(child)
            elif dep in MOD_DEPS:
                if low in DROP_ADVERBS or low in DROP_PREPS or low in RELATIVE_WORDS:
                    continue
                if dep == "prep" and any(c.text.lower() in DROP_PREPS for c in child.children):
                    continue  # "in addition to his career"
                if dep == "advmod" and (child.i < verb.i or (child.i == verb.i + 1 and low in PARTICLE_ADVERBS)):
                    continue
                if dep == "prep" and any(c.dep_ == "pcomp" and self.is_clause(c) for c in child.children):
                    continue  # 'before moving to X': a clause of its own
                if dep == "prep" and low in LIST_MARKERS:
                    members = [o for c in child.children if c.dep_ in {"pobj", "dobj"} for o in self.conjuncts(c)]
                    self.members.extend(members)
                    cores.extend(members)
                    continue  # 'covered many topics, including politics': 'covered politics'
                if dep == "prep" and low == "as" and child.i < verb.i:
                    self.as_role = child
                    continue
                mods.append(child)
                for obj in (c for c in child.children if c.dep_ == "pobj" and _is_date(c) and c.tag_ != "NNS"):
                    for inner in obj.children:  # 'on 7 November 1867 in Warsaw': the place is its own claim
                        if inner.dep_ == "prep" and inner.text.lower() != "of" and inner.i > obj.i:
                            self.extra_cut.add(inner.i)
                            mods.append(inner)
        return cores, mods

    def arg_variants(self, arg: Any, verb: Any) -> list[str]:
        if arg.dep_ in {"prep", "agent"}:
            objs = [c for c in arg.children if c.dep_ in {"pobj", "pcomp"}]
            if not objs:
                return []  # a preposition whose object the parse put elsewhere: no claim to make
            if objs[0].tag_ in {"WDT", "WP"} and verb.dep_ == "relcl":
                # 'the series in which she starred' -> 'starred in the series'
                return [f"{self.render([arg]).lower()} {self.render(self.phrase(verb.head))}"]
            lead = [c for c in arg.children if c.i < arg.i] + [arg]
            lead_text = self.render(lead)
            if lead_text.lower() == "to" and _is_date(objs[0]) and any(
                c.dep_ == "prep" and c.text.lower() == "from" for c in list(arg.head.children) + [arg.head]
            ):
                lead_text = "until"  # 'from 1992 to 2006': 'from 1992', 'until 2006'
            if lead[0].i == 0 and not lead[0].tag_.startswith("NNP"):
                lead_text = lead_text[:1].lower() + lead_text[1:]
            if verb.text.lower() == "born" and lead_text.lower() == "on" and not _has_day(objs[0]):
                lead_text = "in"
            return [f"{lead_text} {v}" for v in self.variants(objs[0])]
        if arg.dep_ == "npadvmod" and verb.text.lower() == "born" and _is_date(arg):
            return [("on " if _has_day(arg) else "in ") + self.render(self.phrase(arg))]
        if arg.dep_ == "attr" and arg.tag_.startswith("NN"):
            return self.attr_variants(arg)
        return self.variants(arg)

    def attr_variants(self, noun: Any) -> list[str]:
        """'a South Korean actor and model' -> 'South Korean', 'an actor', 'a model' (nationality split off)."""
        out: list[str] = []
        rest: list[str] = []
        for k, item in enumerate(self.conjuncts(noun)):
            nationality = [c for c in item.children if c.dep_ == "amod" and c.text[:1].isupper() and c.i < item.i]
            if not nationality or not item.tag_.startswith("NN") or item.tag_.startswith("NNP"):
                rest.extend(self.variants(item) if k == 0 and len(self.conjuncts(noun)) == 1 else [self.render(self.phrase(item))])
                continue
            out.append(" ".join(self.render(n.subtree) for n in nationality))
            drop = {t.i for n in nationality for t in n.subtree}
            toks = [t for t in self.phrase(item) if t.i not in drop]
            text = self.render(toks)
            first = next((t for t in sorted(toks, key=lambda t: t.i)), None)
            if first is not None and first.text.lower() in {"a", "an"}:
                body = self.render([t for t in toks if t is not first])
                text = f"{article(body)} {body}"
            rest.append(text)
        if not out:
            return self.variants(noun)
        first_det = next((c for c in noun.children if c.dep_ == "det"), None)
        fixed = []
        for k, text in enumerate(rest):
            if k and first_det is not None and first_det.text.lower() in {"a", "an"} and not re.match(r"(?i)(an?|the|his|her|their)\b", text):
                text = f"{article(text)} {text}"
            fixed.append(text)
        return out + fixed

    def clause(self, verb: Any) -> None:
        subject = self.clause_subject(verb)
        if not subject:
            return
        group = self.verb_group(verb)
        self.as_role = None
        self.members = []
        cores, mods = self.arguments(verb)
        if self.as_role is not None:  # 'As a singer, X was ...' -> 'X is a singer.'
            role = [c for c in self.as_role.children if c.dep_ == "pobj"]
            for v in self.variants(role[0]) if role else []:
                self.add(subject, "was" if self.past else "is", v)
        plain = [c for c in cores if c not in self.members]
        core_variants = [v for c in plain for v in self.arg_variants(c, verb)]
        if self.members:
            host = next((c for c in plain for t in self.phrase(c) if t.tag_ == "NNS"), None)
            if host is not None:
                toks = self.phrase(host)
                owner = host if host.tag_ == "NNS" else min((t for t in toks if t.tag_ == "NNS"), key=lambda t: t.i)
                core_variants += [self.substitute(toks, owner, self.render(self.phrase(m))) for m in self.members]
            else:
                core_variants += [self.render(self.phrase(m)) for m in self.members]
        mod_variants = [v for m in mods for v in self.arg_variants(m, verb)]
        if not core_variants and not mod_variants:
            if pos(verb) == "VERB":
                self.add(subject, group)
            return
        if not core_variants:
            for m in mod_variants:
                self.add(subject, group, m)
            return
        first, *rest = core_variants
        self.add(subject, group, first)
        for m in mod_variants:
            self.add(subject, group, first, m)
        for c in rest:
            self.add(subject, group, c)

    # ------------------------------------------------------------------ appositives and asides

    def appositive(self, appos: Any) -> None:
        head = appos.head
        if appos.tag_ == "CD" or pos(head) not in {"NOUN", "PROPN"} or self.is_list_appos(appos):
            return
        be = "was" if self.past else "is"
        head_text = self.render(self.phrase(head))
        if (
            head.dep_ in {"pobj", "appos", "conj"}
            and head.tag_.startswith("NNP")
            and appos.tag_.startswith("NNP")
            and not any(q in appos.text + head.text for q in QUOTE_PAIRS)
            and not any(c.dep_ == "det" for c in appos.children)
        ):
            self.add(head_text, "is in", self.render(self.phrase(appos)))  # 'Los Angeles, California'
            return
        if head.tag_ in {"PRP"}:
            return
        if head.tag_ == "NNS" and appos.tag_.startswith("NNP"):
            # 'two albums, This Time and Around': 'This Time is an album.'
            self.category_facts(head, self.phrase(head), [self.render(self.phrase(m)) for m in self.conjuncts(appos)])
            return
        for variant in self.variants(appos):
            self.add(head_text, be, variant)

    def aside(self, position: int, content: str) -> None:
        """'X (born 20 March 1977 in Seoul)', 'X (1920 – 1990)': birth and death facts of the name before it."""
        name = self.name_before(position)
        if not name:
            return
        text = content.strip()
        born = re.match(r"(?i)born\s+(.*)", text)
        if born:
            rest = born.group(1).strip(" ,;")
            date, place = _split_date_place(rest)
            if date:
                self.add(name, "was born", ("on " if re.search(r"\d{1,2}\b.*\d{4}", date) and _month_in(date) else "in ") + date)
            if place:
                self.add(name, "was born in", place)
            return
        span = re.match(r"^(.*?\d{3,4})\s*[–—-]\s*(.*?\d{3,4})$", text)
        if span and self.is_person_name(position):
            for verb, date in (("was born", span.group(1)), ("died", span.group(2))):
                date = re.sub(r"(?i)^(born|died|d\.|b\.)\s*", "", date.strip())
                self.add(name, verb, ("on " if _month_in(date) and re.search(r"\d{1,2}\b.*\d{4}", date) else "in ") + date)

    def is_person_name(self, position: int) -> bool:
        """Life dates '(1920 – 1990)' belong to a person: the response's entity, or the sentence's opening name
        (a film's or an office's years are not births and deaths)."""
        before = [t for t in self.doc if t.idx + len(t.text) <= position]
        if not before or not before[-1].tag_.startswith("NNP"):
            return False
        name = _name_tokens(before[-1])
        if self.entity and before[-1].text in self.entity.full.split():
            return True
        return name[0].i == 0 and any(t.dep_ in SUBJECT_DEPS for t in name)

    def name_before(self, position: int) -> str | None:
        before = [t for t in self.doc if t.idx + len(t.text) <= position]
        if not before:
            return None
        last = before[-1]
        if not last.tag_.startswith("NNP"):
            return None
        if self.entity and last.text in self.entity.full.split():
            return self.entity.short
        return self.render(_name_tokens(last))


def _infinitive(token: Any) -> bool:
    """'gone on to win titles': a to-infinitive, part of its head's claim, not a claim of its own."""
    return token.tag_ == "VB" and any(c.dep_ == "aux" and c.text.lower() == "to" for c in token.children)


def _is_date(token: Any) -> bool:
    return any(t.text.lower() in MONTHS or re.fullmatch(r"\d{3,4}", t.text) for t in token.subtree)


def _has_day(token: Any) -> bool:
    words = [t.text.lower() for t in token.subtree]
    return any(w in MONTHS for w in words) and any(re.fullmatch(r"\d{1,2}", w) for w in words)


def _month_in(text: str) -> bool:
    return any(w in MONTHS for w in re.findall(r"[a-z]+", text.lower()))


def _split_date_place(text: str) -> tuple[str, str]:
    """'20 March 1977 in Seoul' / 'March 20, 1977, Seoul, South Korea' -> date, place."""
    match = re.match(r"^((?:[A-Za-z]+\.?\s+)?(?:\d{1,2}(?:st|nd|rd|th)?,?\s+)?(?:[A-Za-z]+\.?\s+)?(?:\d{1,2},?\s+)?\d{3,4})(.*)$", text)
    if not match or not (_month_in(match.group(1)) or re.fullmatch(r"(?:c\.\s*)?\d{3,4}", match.group(1).strip())):
        return "", re.sub(r"^in\s+", "", text) if text.lower().startswith("in ") else ""
    place = re.sub(r"^[\s,;]*(?:in\s+)?", "", match.group(2)).strip(" ,;")
    return match.group(1).strip(" ,"), place
